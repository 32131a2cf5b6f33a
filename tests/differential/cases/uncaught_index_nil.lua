print("before the error")
local config = {}
print(config.window.width)
print("never printed")
