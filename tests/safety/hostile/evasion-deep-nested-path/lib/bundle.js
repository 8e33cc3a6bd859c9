require('./vendor/node_modules/pkg/dist/esm/internal/util/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/postinstall.js');
