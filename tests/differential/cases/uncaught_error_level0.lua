print("raising a message without position")
error("no position here", 0)
