package dev.orchestrate.state.sql;

import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The verified-work records of jobs (schema 11): the agent's session of each job and the project
 * commands it ran. Read for a list of jobs in one query each, never one per job; a state older than
 * schema 11 (read without migrating: {@code logs}, {@code serve}, a read-only directory) reads as
 * none. Values a newer orchestrate wrote (a kind or ending this one does not know) are left out,
 * not misread.
 */
final class JobChecks {
  private JobChecks() {
  }

  /** The recorded session of each of these jobs that has one. */
  static Map<Long, AgentSession> sessions(Jdbc jdbc, Collection<Long> jobIds) {
    if (jobIds.isEmpty() || !jdbc.dialect().hasColumn(jdbc, "jobs", "session_start")) {
      return Map.of();
    }
    Map<Long, AgentSession> out = new LinkedHashMap<>();
    jdbc.query("SELECT id, session_id, session_start FROM jobs WHERE session_start IS NOT NULL AND id IN ("
        + ids(jobIds) + ") ORDER BY id", rs -> {
          AgentSession.Start start = AgentSession.Start.of(rs.getString(3));
          String id = rs.getString(2);
          if (start != null) {
            out.put(rs.getLong(1), new AgentSession(AgentSession.valid(id) ? id : null, start));
          }
          return null;
        });
    return out;
  }

  /** The checks of each of these jobs that ran any, each job's in the order they ran. */
  static Map<Long, List<CheckRecord>> checks(Jdbc jdbc, Collection<Long> jobIds) {
    if (jobIds.isEmpty() || !jdbc.dialect().hasColumn(jdbc, "job_checks", "job_id")) {
      return Map.of();
    }
    Map<Long, List<CheckRecord>> out = new LinkedHashMap<>();
    jdbc.query("SELECT job_id, kind, name, exit_code, ending, duration_ms, log_file FROM job_checks WHERE job_id IN ("
        + ids(jobIds) + ") ORDER BY job_id, seq", rs -> {
          CommandRun.Kind kind = CommandRun.Kind.of(rs.getString(2));
          CommandRun.Ending ending = CommandRun.Ending.of(rs.getString(5));
          if (kind != null && ending != null) {
            out.computeIfAbsent(rs.getLong(1), id -> new ArrayList<>()).add(new CheckRecord(kind, rs.getString(3),
                Columns.intOrNull(rs, 4), ending, Duration.ofMillis(Math.max(0, rs.getLong(6))), rs.getString(7)));
          }
          return null;
        });
    out.replaceAll((id, list) -> List.copyOf(list));
    return out;
  }

  /** Job ids inlined (numbers only): a list as long as {@code jobs --limit} allows stays one statement. */
  private static String ids(Collection<Long> jobIds) {
    return jobIds.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
