// The only module that talks to the Rust backend; views call these functions.
const api = (() => {
  const invoke = (cmd, args) => window.__TAURI__.core.invoke(cmd, args);
  return {
    openWorkspace: (path) => invoke("open_workspace", { path }),
    overview: () => invoke("overview"),
    readFile: (file) => invoke("read_file", { file }),
    checkDraft: (file, text) => invoke("check_draft", { file, text }),
    saveFile: (file, text, base) => invoke("save_file", { file, text, base }),
    decompose: (text) => invoke("decompose", { text }),
    compose: (parts) => invoke("compose", { parts }),
    createSkill: (parent, name) => invoke("create_skill", { parent, name }),
    renameSkill: (file, name) => invoke("rename_skill", { file, name }),
    deleteSkill: (file) => invoke("delete_skill", { file }),
    exportPackage: (file) => invoke("export_package", { file }),
    importPackage: (path) => invoke("import_package", { path }),
    toggles: () => invoke("toggles"),
    setToggle: (client, skill, value) => invoke("set_toggle", { client, skill, value }),
    build: () => invoke("build"),
    preview: (request) => invoke("preview", { request }),
    diff: () => invoke("diff"),
    on: (event, handler) => window.__TAURI__.event.listen(event, (e) => handler(e.payload)),
  };
})();
