import os

from dotenv import load_dotenv

load_dotenv()
print('migrating', os.environ['DATABASE_URL'].split('@')[-1])
