// Formatting helpers for prices.
const CURRENCY = "EUR";

export class PriceFormatter {
  constructor(locale) {
    this.locale = locale;
  }

  format(amount) {
    return new Intl.NumberFormat(this.locale, {
      style: "currency",
      currency: CURRENCY,
    }).format(amount);
  }
}

export function total(prices) {
  return prices.reduce((sum, price) => sum + price, 0);
}

export const withTax = (amount, rate) => amount * (1 + rate);
