package dev.orchestrate.context;

/** A cheap, model-independent token estimate: about four characters per token. */
public final class Tokens {
  private Tokens() {
  }

  public static int estimate(String text) {
    return text == null ? 0 : (text.length() + 3) / 4;
  }
}
