#!/bin/sh
rsync -e 'ssh -i assets/deploy_key' -a public/ deploy@build.example.net:/srv/site
