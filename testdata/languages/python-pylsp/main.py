from greet import greet

print(greet("world"))
print(undefined_name)
