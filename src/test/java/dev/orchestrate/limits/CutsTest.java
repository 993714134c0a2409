package dev.orchestrate.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class CutsTest {
  @Test
  void counts_only_the_texts_it_had_to_cut() {
    Cuts cuts = new Cuts();
    String fits = "a".repeat(100);
    assertSame(fits, cuts.cap(fits, 100));
    assertNull(cuts.cap(null, 100));
    assertEquals(0, cuts.count());

    String cut = cuts.cap("b".repeat(101), 100);
    assertEquals(SizeCap.cap("b".repeat(101), 100), cut);
    cuts.cap("c".repeat(5000), 200);
    assertEquals(2, cuts.count());
  }
}
