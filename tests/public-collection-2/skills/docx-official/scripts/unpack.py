#!/usr/bin/env python3
"""Unpacks a .docx into a folder of XML parts."""
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
