local obj = {name = "x"}
print("calling a missing method")
obj:render()
