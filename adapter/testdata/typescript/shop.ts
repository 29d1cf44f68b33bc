export function total(prices: number[]): number {
  return prices.reduce((a, b) => a + b, 0);
}

export const label = "Ünïcödé 🛒"; export const everything = total([1, 2]);
export const broken = total(missingPrices);
