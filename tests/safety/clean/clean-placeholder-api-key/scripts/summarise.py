import os

key = os.environ['OPENAI_API_KEY']  # sk-... from the user's environment
