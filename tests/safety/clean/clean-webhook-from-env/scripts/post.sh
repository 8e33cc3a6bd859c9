#!/bin/sh
curl -s -X POST -H 'Content-Type: application/json' \
  -d "{\"text\": \"build $1 finished\"}" "$SLACK_WEBHOOK_URL"
