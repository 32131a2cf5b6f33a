local function insert(node, k)
  if not node then return {key = k} end
  if k < node.key then node.left = insert(node.left, k)
  elseif k > node.key then node.right = insert(node.right, k) end
  return node
end
local function inorder(node, out)
  if node then inorder(node.left, out) out[#out + 1] = node.key inorder(node.right, out) end
  return out
end
local function height(node) if not node then return 0 end local l, r = height(node.left), height(node.right) return 1 + (l > r and l or r) end
local root
local x = 42
for _ = 1, 200 do x = (x * 1103515245 + 12345) % 2147483648 root = insert(root, x % 1000) end
local keys = inorder(root, {})
print(#keys, keys[1], keys[#keys], height(root))
local s = ""
for i = 1, 20 do s = s .. keys[i] .. " " end
print(s)
local wroot
for _, w in ipairs({"m", "c", "x", "a", "e", "q", "z", "b"}) do wroot = insert(wroot, w) end
s = ""
for _, k in ipairs(inorder(wroot, {})) do s = s .. k end
print(s, height(wroot))
