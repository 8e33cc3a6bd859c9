print("unpack")
