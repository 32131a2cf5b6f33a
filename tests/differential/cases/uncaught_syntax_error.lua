print("this file does not compile, so nothing is printed")
local x = = 1
