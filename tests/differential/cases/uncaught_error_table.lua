print("raising a table")
error({code = 1})
