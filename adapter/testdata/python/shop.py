def total(prices: list[int]) -> int:
    return sum(prices)


label = "Ünïcödé 🛒"; everything = total([1, 2])
broken = total(missing_prices)
