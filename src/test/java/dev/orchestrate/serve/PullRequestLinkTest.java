package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The pull request on an item page is a link only when it is an http or https address. */
class PullRequestLinkTest {
  private static String shown(String url) {
    StringBuilder b = new StringBuilder();
    ItemPages.pullRequest(b, url);
    return b.toString();
  }

  @Test
  void an_https_address_is_a_link_and_anything_else_is_text() {
    assertEquals("<dt>Pull request</dt><dd><a href=\"https://forge.example/o/r/pull/7?a=1&amp;b=2\" "
        + "rel=\"noreferrer noopener\">https://forge.example/o/r/pull/7?a=1&amp;b=2</a></dd>",
        shown("https://forge.example/o/r/pull/7?a=1&b=2"));
    assertEquals("<dt>Pull request</dt><dd>javascript:alert(document.cookie)</dd>",
        shown("javascript:alert(document.cookie)"));
    assertEquals("<dt>Pull request</dt><dd> JAVASCRIPT:x&quot;&gt;</dd>", shown(" JAVASCRIPT:x\">"));
  }
}
