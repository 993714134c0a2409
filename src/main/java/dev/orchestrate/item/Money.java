package dev.orchestrate.item;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** US dollars as a message shows them: cents at least, and up to 6 decimals for a small budget. */
public final class Money {
  private Money() {
  }

  /** {@code $20.00}, {@code $20.13}, {@code $0.001}, {@code $0.00025}. */
  public static String usd(double amount) {
    BigDecimal value = BigDecimal.valueOf(amount).setScale(6, RoundingMode.HALF_UP).stripTrailingZeros();
    return "$" + (value.scale() < 2 ? value.setScale(2, RoundingMode.UNNECESSARY) : value).toPlainString();
  }
}
