package dev.orchestrate.limits;

/**
 * Caps the texts of one write with {@link SizeCap} and counts how many it cut, so the write can
 * carry that count to the store ({@code structures.truncated_writes}). One per write; not shared
 * between threads.
 */
public final class Cuts {
  private int count;

  /** {@link SizeCap#cap}, counting the text when it did not fit. */
  public String cap(String text, int maxChars) {
    if (SizeCap.exceeds(text, maxChars)) {
      count++;
    }
    return SizeCap.cap(text, maxChars);
  }

  /** How many texts {@link #cap} cut so far. */
  public int count() {
    return count;
  }
}
