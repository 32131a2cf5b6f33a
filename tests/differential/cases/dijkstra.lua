local graph = {
  A = {B = 7, C = 9, F = 14}, B = {A = 7, C = 10, D = 15}, C = {A = 9, B = 10, D = 11, F = 2},
  D = {B = 15, C = 11, E = 6}, E = {D = 6, F = 9}, F = {A = 14, C = 2, E = 9},
}
local names = {"A", "B", "C", "D", "E", "F"}
local function dijkstra(src)
  local dist, prev, done = {}, {}, {}
  for _, n in ipairs(names) do dist[n] = 1/0 end
  dist[src] = 0
  for _ = 1, #names do
    local u
    for _, n in ipairs(names) do if not done[n] and (u == nil or dist[n] < dist[u]) then u = n end end
    done[u] = true
    for _, v in ipairs(names) do
      local w = graph[u][v]
      if w and dist[u] + w < dist[v] then dist[v] = dist[u] + w prev[v] = u end
    end
  end
  return dist, prev
end
local dist, prev = dijkstra("A")
for _, n in ipairs(names) do
  local path, cur = n, n
  while prev[cur] do cur = prev[cur] path = cur .. ">" .. path end
  print(n, dist[n], path)
end
