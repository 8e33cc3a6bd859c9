Add-Type -Path "$PSScriptRoot\..\lib\zbar.dll"
