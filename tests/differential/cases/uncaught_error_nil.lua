print("raising nil")
error(nil)
