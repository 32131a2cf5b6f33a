print("tab\there", "nl\\n", "quote\"s", 'single\'s', "bell-less")
print("\65\66\67", "\x41\x42", "\u{48}\u{49}", "\u{E9}", "\u{20AC}", "\u{1F600}")
print("a\z
       b", "line1\
line2")
print(#"\0\1\2", #"\u{10FFFF}", #"\xff\xfe")
print("[[" .. [[long
string]] .. "]]")
print([==[with ]] inside]==])
