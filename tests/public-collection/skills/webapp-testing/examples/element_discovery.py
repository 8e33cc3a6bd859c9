print("discover")
