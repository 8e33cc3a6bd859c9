//! The threads that list a workspace's folders and read its files, more than its cores: a
//! folder or file out of the page cache waits on the disk, not on a core.

/// Threads for listing folders and reading files: [`IO_THREADS_PER_WORKER`] for each worker of
/// the caller's pool, at most [`MOST_IO_THREADS`]. A folder or file out of the page cache waits
/// on the disk, not on a core: `find` over 50,000 folders out of the cache took 3.6 s as one
/// process and 1.3–1.7 s as four to eight. A pool of one worker (`--jobs 1`) keeps to it. A
/// pool is made for each walk and read: a fraction of a millisecond, and nothing kept. Work
/// already on such a pool (a read inside a walk and read) stays on it.
pub(super) fn on_io_threads<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let workers = rayon::current_num_threads();
    let on_io = std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(IO_THREAD));
    if workers <= 1 || on_io {
        return work();
    }
    let threads = (workers * IO_THREADS_PER_WORKER).min(MOST_IO_THREADS);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("{IO_THREAD}-{i}"));
    match pool.build() {
        Ok(pool) => pool.install(work),
        // Threads that cannot start: the caller's pool does the work.
        Err(_) => work(),
    }
}

/// See [`on_io_threads`].
const IO_THREADS_PER_WORKER: usize = 4;
const MOST_IO_THREADS: usize = 16;
/// The name of an I/O thread (then its number).
const IO_THREAD: &str = "skillc-io";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_files_are_read_on_four_threads_a_worker_and_one_worker_keeps_to_one() {
        let on = |workers: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(workers);
            pool.build().unwrap()
        };
        let threads =
            |workers: usize| on(workers).install(|| on_io_threads(rayon::current_num_threads));
        assert_eq!(threads(1), 1);
        assert_eq!(threads(2), 8);
        assert_eq!(threads(8), MOST_IO_THREADS);
        // Inside a walk and read, a read keeps to the walk's pool rather than making one more.
        let nested = on(2).install(|| on_io_threads(|| on_io_threads(rayon::current_num_threads)));
        assert_eq!(nested, 8);
    }
}
