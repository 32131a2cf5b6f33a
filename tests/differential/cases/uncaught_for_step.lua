local step = 0
print("loop with zero step")
for i = 1, 10, step do print(i) end
