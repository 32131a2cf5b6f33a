print("raising a number")
error(42)
