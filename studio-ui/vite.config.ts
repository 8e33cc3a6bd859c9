import { defineConfig } from "vite";

// Tauri serves the built files from `dist/` (tauri.conf.json's frontendDist).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1500 },
  clearScreen: false,
});
