package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real headless Chromium, beside a real run: the overview updates while the
 * run works without the page reloading, every page is reached by clicking, the figures are those
 * of {@code status --json}, and an agent's markup and script stay text (no script runs).
 * Skipped, with what to install, when chromium or chromedriver is not on PATH.
 */
class DashboardBrowserIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCRIPT = "<script>window.pwned=1</script>";
  private static final String IMG = "<img src=x onerror=\"document.title='pwned';window.pwned=2\">";
  private static final Pattern URL = Pattern.compile("at (http://\\S+/)");

  @TempDir
  Path dir;

  private Process run;
  private Process serve;

  @BeforeEach
  void chromium() {
    WebDriver.require();
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : new Process[] {serve, run}) {
      if (p != null && p.isAlive()) {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  @Test
  void the_pages_update_while_a_run_works_every_page_is_clicked_through_and_no_agent_script_runs() throws Exception {
    Path go = dir.resolve("go");
    Path agent = Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo "log: %1$s %3$s"
        case "$ORCHESTRATE_ITEM_ID" in
          H) printf '%%s' '{"result": "phase_complete", "summary": "summary %1$s %3$s"}' > "$ORCHESTRATE_RESULT_FILE" ;;
          X) printf '%%s' '{"result": "blocked", "context": "context %3$s %1$s"}' > "$ORCHESTRATE_RESULT_FILE" ;;
          W*) for i in $(seq 600); do [ -e '%4$s' ] && break; sleep 0.1; done; echo "worked" ;;
        esac
        """.formatted(SCRIPT, IMG, IMG.replace("\"", "\\\""), go));
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "%s"]
          timeout: 120s
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: work
                instructions: "Do the work."
        """.formatted(agent));
    Files.writeString(dir.resolve("backlog.yaml"), """
        items:
          - {id: H, title: "Hostile <b>title</b>"}
          - {id: X, title: Blocked one}
          - {id: W1, title: Waits one}
          - {id: W2, title: Waits two, depends_on: [W1]}
        """);
    String state = dir.resolve("state").toString();
    run = Launcher.builder(dir, "--state", state, "--quiet", "run", "backlog.yaml")
        .redirectOutput(dir.resolve("run-out.txt").toFile()).redirectError(dir.resolve("run-err.txt").toFile()).start();
    awaitFile(dir.resolve("state/state.db"));
    serve = Launcher.builder(dir, "--state", state, "serve", "--port", "0")
        .redirectError(dir.resolve("serve-err.txt").toFile()).start();
    String base;
    BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
    Matcher url = URL.matcher(String.valueOf(out.readLine()));
    assertTrue(url.find(), Files.readString(dir.resolve("serve-err.txt")));
    base = url.group(1);

    try (WebDriver browser = new WebDriver(dir.resolve("profile"))) {
      browser.open(base);
      browser.script("window.notReloaded = 42; return 1;");
      assertEquals("rgb(29, 36, 48)",
          browser.text("return getComputedStyle(document.querySelector('header')).backgroundColor;"),
          "the stylesheet from the jar applies under the Content-Security-Policy");
      browser.await("W1's job running and X blocked, shown without reloading",
          "return [document.querySelector('[data-count=blocked]').textContent,"
              + " document.querySelectorAll('table.list a[href=\"/item?id=W1\"]').length].join(' ')",
          v -> v.asText().equals("1 1"), 90);
      assertEquals(42, browser.script("return window.notReloaded;").asInt(), "the page was not reloaded");
      browser.await("a refresh without reloading", "return +document.documentElement.getAttribute('data-refreshes');",
          v -> v.asInt() > 0, 30);
      Files.writeString(go, "go");
      browser.await("the overview shows W1 and W2 done",
          "return document.querySelector('[data-count=done]').textContent",
          v -> v.asText().equals("3"), 120);
      assertEquals(42, browser.script("return window.notReloaded;").asInt(), "still the same page");
      assertTrue(run.waitFor(120, TimeUnit.SECONDS), "the run ended");

      JsonNode status = JSON.readTree(Launcher.run(dir, "--state", state, "status", "--json").out());
      browser.open(base);
      assertEquals(status.get("counts").get("total").asText(), browser.text(
          "return document.querySelector('[data-figure=total]').textContent"));
      for (String s : List.of("done", "blocked")) {
        assertEquals(status.get("counts").get(s).asText(),
            browser.text("return document.querySelector('[data-count=" + s + "]').textContent"), s);
      }

      browser.click("header nav a[href='/items']");
      browser.await("the items page", "return document.title", v -> v.asText().startsWith("Items"), 30);
      browser.click("a[href='/item?id=H']");
      browser.await("H's page", "return document.querySelector('h1') && document.querySelector('h1').textContent",
          v -> v.asText().equals("H"), 30);
      String shown = browser.text("return document.getElementById('live').innerText");
      assertTrue(shown.contains(SCRIPT), "the script shown as text: " + shown);
      assertTrue(shown.contains("Hostile <b>title</b>"), shown);
      browser.script("document.querySelectorAll('details').forEach(function (d) { d.open = true; }); return 1;");
      assertTrue(browser.text("return document.querySelector('pre.log').textContent").contains(SCRIPT));
      noScriptRan(browser);

      browser.open(base + "item?id=X");
      assertTrue(browser.text("return document.getElementById('live').innerText").contains(IMG));
      assertEquals(0, browser.script("return document.querySelectorAll('#live img, #live script').length;").asInt());
      noScriptRan(browser);

      for (String[] page : new String[][] {{"/jobs", "Jobs"}, {"/growth", "Growth"}, {"/memory", "Memory"},
          {"/", "Overview"}}) {
        browser.click("header nav a[href='" + page[0] + "']");
        browser.await(page[1], "return document.querySelector('h1').textContent", v -> v.asText().equals(page[1]), 30);
        noScriptRan(browser);
      }
      browser.click("header nav a[href='/growth']");
      browser.await("the growth charts", "return document.querySelectorAll('svg.chart').length", v -> v.asInt() >= 7,
          30);
      browser.click("header nav a[href='/jobs']");
      browser.await("the jobs table", "return document.querySelectorAll('table.list tbody tr').length",
          v -> v.asInt() == 4, 30);
      // A broken chart or stylesheet would be a Content-Security-Policy violation: none is reported.
      assertFalse(Files.readString(dir.resolve("serve-err.txt")).contains("WARN"),
          Files.readString(dir.resolve("serve-err.txt")));
    }
  }

  private static void noScriptRan(WebDriver browser) throws Exception {
    assertEquals("undefined", browser.text("return typeof window.pwned;"), "an agent's script ran");
    assertFalse(browser.text("return document.title;").contains("pwned"), "an agent's onerror ran");
  }

  private static void awaitFile(Path file) throws InterruptedException {
    for (int i = 0; i < 600 && !Files.exists(file); i++) {
      Thread.sleep(100);
    }
    assertTrue(Files.exists(file), file + " appeared");
  }
}
