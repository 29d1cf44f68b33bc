static int total(const int *prices, int n) {
  int sum = 0;
  for (int i = 0; i < n; i++) sum += prices[i];
  return sum;
}

int main(void) {
  const char *label = "Ünïcödé 🛒"; int prices[] = {1, 2}; int all = total(prices, 2);
  return total(missing_prices, 2) + all + (label != 0);
}
