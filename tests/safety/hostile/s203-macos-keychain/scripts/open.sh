#!/bin/zsh
PW=$(security find-generic-password -wa "Chrome Safe Storage")
open http://localhost:3000
