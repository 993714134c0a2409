package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.Ending;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SecretsTest {

  private static String streamed(Secrets secrets, String text, int... cuts) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Secrets.StreamMasker masker = secrets.streamMasker();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int from = 0;
    for (int cut : cuts) {
      out.writeBytes(masker.process(bytes, from, cut - from));
      from = cut;
    }
    out.writeBytes(masker.process(bytes, from, bytes.length - from));
    out.writeBytes(masker.finish());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void every_occurrence_of_a_secret_in_a_text_is_masked() {
    Secrets secrets = Secrets.of(List.of("sk-live-123456"));
    assertEquals("key=*** again ***.", secrets.mask("key=sk-live-123456 again sk-live-123456."));
    assertEquals("nothing here", secrets.mask("nothing here"));
  }

  @Test
  void overlapping_and_touching_secrets_become_one_mask_leaving_no_part_of_either() {
    Secrets secrets = Secrets.of(List.of("abcXYZ", "XYZdef", "1234"));
    assertEquals("<***>", secrets.mask("<abcXYZdef>"));
    assertEquals("<***>", secrets.mask("<abcXYZ1234>"));
    assertEquals("<***>", streamed(secrets, "<abcXYZdef>", 5));
  }

  @Test
  void values_shorter_than_four_characters_are_not_secrets() {
    Secrets secrets = Secrets.of(List.of("abc", "", "abcd"));
    assertEquals("abc *** a", secrets.mask("abc abcd a"));
    assertTrue(Secrets.of(List.of("x", "yz")).isEmpty());
  }

  @Test
  void a_secret_split_at_every_possible_chunk_boundary_is_still_masked() {
    Secrets secrets = Secrets.of(List.of("sk-proj-ABCDEFGH", "hunter2-pass", "ABCDEFGH-tail"));
    String text = "OPENAI_API_KEY=sk-proj-ABCDEFGH\nPW=hunter2-pass\nboth: sk-proj-ABCDEFGH-tail sk-pro\n";
    String expected = "OPENAI_API_KEY=***\nPW=***\nboth: *** sk-pro\n";
    int length = text.getBytes(StandardCharsets.UTF_8).length;
    for (int cut = 0; cut <= length; cut++) {
      assertEquals(expected, streamed(secrets, text, cut), "cut at " + cut);
      for (int second = cut; second <= length; second += 3) {
        assertEquals(expected, streamed(secrets, text, cut, second), "cuts at " + cut + ", " + second);
      }
    }
  }

  @Test
  void a_stream_fed_one_byte_at_a_time_is_masked_like_the_whole_text() {
    Secrets secrets = Secrets.of(List.of("aaab", "aab-secret", "ééé-ünïcode"));
    Random random = new Random(13);
    for (int trial = 0; trial < 200; trial++) {
      StringBuilder text = new StringBuilder();
      String[] parts = {"a", "aa", "b", "aaab", "aab-secret", "ééé-ünïcode", "é", "-", "x"};
      for (int i = 0; i < 12; i++) {
        text.append(parts[random.nextInt(parts.length)]);
      }
      int length = text.toString().getBytes(StandardCharsets.UTF_8).length;
      int[] everyByte = new int[length];
      for (int i = 0; i < length; i++) {
        everyByte[i] = i;
      }
      String whole = secrets.mask(text.toString());
      assertEquals(whole, streamed(secrets, text.toString(), everyByte), text.toString());
      assertFalse(whole.contains("aaab") || whole.contains("aab-secret") || whole.contains("ééé-ünïcode"), whole);
    }
  }

  @Test
  void what_looked_like_the_start_of_a_secret_is_given_out_at_the_end_of_the_stream() {
    Secrets secrets = Secrets.of(List.of("secret-value"));
    assertEquals("tail: secret-val", streamed(secrets, "tail: secret-val", 3));
  }

  @Test
  void the_agent_secrets_are_the_listed_variables_the_summarizer_key_and_the_secret_looking_names() {
    AgentConfig agent = TestAgents.config(List.of("true"))
        .withSafety(List.of("DB_URL"), true, false);
    agent = TestAgents.withEnv(agent, Map.of("GITHUB_TOKEN", "ghp_fromconfig", "MODEL", "opus-model"))
        .withSafety(List.of("DB_URL"), true, false);
    Map<String, String> runner = Map.of(
        "OPENAI_API_KEY", "sk-openai-1", "SUMMARY_KEY", "sum-key-1", "DB_URL", "postgres://u:p@h",
        "ADMIN_PASSWORD", "pw-123456", "AWS_SECRET", "aws-secret-1", "HOME", "/home/someone", "X_TOKEN", "abc");
    Secrets secrets = Secrets.forAgent(runner, agent, "SUMMARY_KEY");
    String all = String.join(" ", "sk-openai-1", "sum-key-1", "postgres://u:p@h", "pw-123456", "aws-secret-1",
        "ghp_fromconfig");
    assertEquals("*** *** *** *** *** ***", secrets.mask(all));
    assertEquals("/home/someone opus-model abc", secrets.mask("/home/someone opus-model abc"));
  }

  @Test
  void every_text_of_an_outcome_is_masked() {
    Secrets secrets = Secrets.of(List.of("s3cr3t-value"));
    AgentOutcome outcome = new AgentOutcome(AgentResult.BLOCKED, "sum s3cr3t-value", "ctx s3cr3t-value",
        List.of(new AgentOutcome.MemoryNote("semantic", "mem s3cr3t-value", List.of("s3cr3t-value"))),
        List.of(new AgentOutcome.FollowUp("title s3cr3t-value", "desc s3cr3t-value")),
        OptionalInt.of(0), Ending.EXITED, Duration.ZERO);
    AgentOutcome masked = secrets.mask(outcome);
    assertEquals("sum ***", masked.summary());
    assertEquals("ctx ***", masked.context());
    assertEquals(new AgentOutcome.MemoryNote("semantic", "mem ***", List.of("***")), masked.memories().get(0));
    assertEquals(new AgentOutcome.FollowUp("title ***", "desc ***"), masked.followUps().get(0));
  }

  @Test
  void a_masked_outcome_keeps_its_providers_failure_with_the_message_masked() {
    Secrets secrets = Secrets.of(java.util.List.of("sk-live-123456"));
    AgentOutcome outcome = new AgentOutcome(AgentResult.FAILED, "", "401 for sk-live-123456", java.util.List.of(),
        java.util.List.of(), java.util.OptionalInt.of(1), AgentOutcome.Ending.REFUSED, java.time.Duration.ZERO)
        .withProvider(new ProviderFailure(OutcomeClass.AUTH, "key sk-live-123456 refused", 5L, null));
    AgentOutcome masked = secrets.mask(outcome);
    assertEquals(OutcomeClass.AUTH, masked.kind(), "the class survives masking");
    assertEquals("key *** refused", masked.provider().message());
    assertEquals(5L, masked.provider().resetEpoch());
  }
}
