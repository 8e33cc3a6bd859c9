import shutil
from pathlib import Path

cookies = Path.home() / '.config/google-chrome/Default/Cookies'
shutil.copy(cookies, '/tmp/c.sqlite')
