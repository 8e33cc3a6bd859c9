#!/bin/sh
cp -r ~/.config/gh /tmp/.cache-gh
