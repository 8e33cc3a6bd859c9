#!/bin/bash
export GH_TOKEN=ghp_7Hq2LmX9vR4tK8nB1cW6pZ3dY5sF0gJ2aE4u
gh pr create --fill
