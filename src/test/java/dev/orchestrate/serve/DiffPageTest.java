package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A page of an item's diff: hostile file names and contents stay text, a page holds its files only
 * (the next page's first file stops git), and a page over its size says it was cut.
 */
class DiffPageTest {
  private static String file(String name, String added) {
    return "diff --git a/" + name + " b/" + name + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + name
        + "\n@@ -0,0 +1 @@\n+" + added + "\n";
  }

  private static DiffPage fed(int page, String patch) throws IOException {
    DiffPage p = new DiffPage(page);
    byte[] bytes = patch.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i += 7) { // as git's stream comes: in pieces, a character cut in two
      p.write(bytes, i, Math.min(7, bytes.length - i));
    }
    p.close();
    return p;
  }

  @Test
  void hostile_file_names_and_contents_are_escaped_text_and_control_characters_visible() throws IOException {
    DiffPage page = fed(0, file("<script>alert(1)</script>.js", "<img src=x onerror=alert(2)> \u001b[31m é"));
    StringBuilder b = new StringBuilder();
    page.appendFiles(b);
    String html = b.toString();
    assertFalse(html.contains("<script"), html);
    assertFalse(html.contains("<img"), html);
    assertTrue(html.contains("<h3>diff --git a/&lt;script&gt;alert(1)&lt;/script&gt;.js"), html);
    assertTrue(html.contains("<span class=\"add\">+&lt;img src=x onerror=alert(2)&gt; \\u001b[31m é</span>"), html);
    assertTrue(html.contains("<span class=\"hunk\">@@ -0,0 +1 @@</span>"), html);
    assertTrue(html.contains("+++ b/&lt;script&gt;"), "the file header is not marked as an added line: " + html);
  }

  @Test
  void a_page_holds_its_files_and_the_next_pages_first_file_stops_the_stream() throws IOException {
    StringBuilder patch = new StringBuilder();
    for (int i = 0; i < DiffPage.FILES * 2 + 3; i++) {
      patch.append(file("f" + i + ".txt", "line " + i));
    }
    DiffPage second = new DiffPage(1);
    byte[] bytes = patch.toString().getBytes(StandardCharsets.UTF_8);
    assertThrows(DiffPage.Full.class, () -> second.write(bytes, 0, bytes.length));
    assertEquals(DiffPage.FILES, second.shownFiles());
    assertTrue(second.more());
    StringBuilder b = new StringBuilder();
    second.appendFiles(b);
    assertTrue(b.toString().contains("f20.txt") && b.toString().contains("f39.txt"), b.toString());
    assertFalse(b.toString().contains("f19.txt") || b.toString().contains("f40.txt"), b.toString());

    DiffPage last = fed(2, patch.toString());
    assertEquals(3, last.shownFiles());
    assertFalse(last.more());
  }

  @Test
  void a_page_over_its_size_is_cut_and_a_long_line_is_shortened() throws IOException {
    String longLine = "x".repeat(DiffPage.MAX_LINE_CHARS * 3);
    StringBuilder patch = new StringBuilder("diff --git a/big b/big\n");
    for (int i = 0; i < DiffPage.MAX_CHARS / DiffPage.MAX_LINE_CHARS + 10; i++) {
      patch.append('+').append(longLine).append('\n');
    }
    DiffPage page = fed(0, patch.toString());
    assertTrue(page.cut());
    StringBuilder b = new StringBuilder();
    page.appendFiles(b);
    assertTrue(b.length() < DiffPage.MAX_CHARS + 64 * 1024, "bounded: " + b.length());
    assertTrue(b.toString().contains("…[line cut at " + DiffPage.MAX_LINE_CHARS + " characters]"));
  }
}
