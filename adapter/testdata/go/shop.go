package shop

func total(prices []int) int {
	sum := 0
	for _, p := range prices {
		sum += p
	}
	return sum
}

var label, all = "Ünïcödé 🛒", total([]int{1, 2})

var broken = total(missingPrices)
