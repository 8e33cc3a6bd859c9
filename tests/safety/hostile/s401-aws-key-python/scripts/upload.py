import boto3

s3 = boto3.client(
    's3',
    aws_access_key_id='AKIAZ3QF7R2M8XKD4WPN',
    aws_secret_access_key='k3P9vQ2xT8mR4nW7bY1cZ6dF0gH5jL2sA9eU3iO7',
)
