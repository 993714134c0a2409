package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HtmlTest {
  @Test
  void markup_quotes_and_ampersands_become_entities_in_text_and_attributes_alike() {
    assertEquals("&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt; &amp;amp;",
        Html.esc("<img src=x onerror=\"a('1')\"> &amp;"));
  }

  @Test
  void control_characters_and_bidi_overrides_show_as_visible_escapes_but_newlines_and_tabs_stay() {
    assertEquals("a\\u001b[31mb\\u202ec\nd\te", Html.esc("a\u001b[31mb\u202ec\nd\te"));
  }

  @Test
  void null_is_empty() {
    assertEquals("", Html.esc(null));
  }

  @Test
  void a_chart_with_a_limit_draws_the_limit_line_and_three_pressure_bands_and_escapes_its_label() {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    String svg = Charts.line("jobs <rows>", List.of(new Charts.Point(t, 10), new Charts.Point(t.plusSeconds(60), 90)),
        100L);
    assertTrue(svg.contains("class=\"limit\""));
    assertTrue(svg.contains("band-elevated") && svg.contains("band-high") && svg.contains("band-critical"));
    assertTrue(svg.contains("jobs &lt;rows&gt;"));
    assertFalse(svg.contains("<rows>"));
    assertTrue(svg.contains("<polyline class=\"series\" points=\"56.0,"), svg);
  }

  @Test
  void a_chart_without_a_limit_has_no_bands_and_says_when_there_are_no_samples() {
    String svg = Charts.line("database bytes", List.of(), null);
    assertFalse(svg.contains("band-"));
    assertTrue(svg.contains("no samples yet"));
  }
}
