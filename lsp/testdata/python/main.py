def greet(name: str) -> str:
    return "hello " + name


s = "日本語😀"; print(greet(s))
print(greet("x"), undefined_name)
