package dev.orchestrate.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the dashboard's own server takes for a request head, and what it refuses before a handler sees it. */
class RequestHeadTest {
  private static RequestHead read(String head) throws Exception {
    return RequestHead.read(new ByteArrayInputStream(head.getBytes(StandardCharsets.ISO_8859_1)), 1024);
  }

  private static int refused(String head) {
    return assertThrows(RequestHead.Malformed.class, () -> read(head)).status;
  }

  @Test
  void a_head_gives_its_method_target_version_and_fields_by_name_in_any_case() throws Exception {
    RequestHead head = read("\r\nGET /items?status=done HTTP/1.1\r\nHost: 127.0.0.1:8765\r\ncookie: a=1\n"
        + "Cookie:  b=2 \r\n\r\nbody that is not read");
    assertEquals("GET", head.method());
    assertEquals("/items", head.uri().getPath());
    assertEquals("status=done", head.uri().getRawQuery());
    assertEquals("HTTP/1.1", head.protocol());
    assertEquals(List.of("127.0.0.1:8765"), head.header("HOST"));
    assertEquals(List.of("a=1", "b=2"), head.header("Cookie"));
    assertEquals(null, head.first("Authorization"));
  }

  @Test
  void a_malformed_line_is_refused_with_400() {
    for (String head : List.of("GET /\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\n\r\n",
        "GET /a b HTTP/1.1\r\n\r\n", "GET /%zz HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nNo-colon\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", "G\u00e9T / HTTP/1.1\r\n\r\n")) {
      assertEquals(400, refused(head), head);
    }
  }

  @Test
  void a_head_over_the_limit_is_refused_414_in_its_request_line_and_431_after() {
    assertEquals(414, refused("GET /" + "a".repeat(2000) + " HTTP/1.1\r\n\r\n"));
    assertEquals(431, refused("GET / HTTP/1.1\r\nX: " + "a".repeat(2000) + "\r\n\r\n"));
  }

  @Test
  void a_head_the_client_does_not_finish_is_an_end_of_stream() {
    assertThrows(EOFException.class, () -> read("GET / HTTP/1.1\r\nHost: x\r\n"));
  }
}
