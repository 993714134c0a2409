package dev.orchestrate.cli;

import dev.orchestrate.scheduler.ItemFilterException;

/** Range checks of numeric flags, worded like the config's: {@code --cap must be at most 1000000, got 2000000}. */
final class Flags {
  private Flags() {
  }

  /** Refuses a value above {@code max}; an absent flag (null) passes. */
  /** A flag's value within {@code min .. max} (unset passes), else a usage error naming the flag. */
  static void inRange(String flag, Integer value, int min, int max) {
    if (value != null && value < min) {
      throw CliException.usage(flag + " must be " + min + " or more, got " + value);
    }
    atMost(flag, value, max);
  }

  static void atMost(String flag, Integer value, int max) {
    if (value != null && value > max) {
      throw CliException.usage(flag + " must be at most " + max + ", got " + value);
    }
  }

  /** A filter value the run cannot use, as a usage error naming the flag it came from. */
  static CliException filterError(ItemFilterException e) {
    String flag = e.part() == ItemFilterException.Part.TARGET ? "--target" : "--only";
    return CliException.usage(flag + ": " + e.getMessage());
  }
}
