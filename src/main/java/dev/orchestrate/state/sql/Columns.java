package dev.orchestrate.state.sql;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Reading nullable columns of the current row: SQL NULL stays null (JDBC would give 0). */
final class Columns {
  private Columns() {
  }

  static Long longOrNull(ResultSet rs, String column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? null : value;
  }

  static Long longOrNull(ResultSet rs, int column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? null : value;
  }

  static Integer intOrNull(ResultSet rs, String column) throws SQLException {
    int value = rs.getInt(column);
    return rs.wasNull() ? null : value;
  }

  static Integer intOrNull(ResultSet rs, int column) throws SQLException {
    int value = rs.getInt(column);
    return rs.wasNull() ? null : value;
  }

  static Double doubleOrNull(ResultSet rs, String column) throws SQLException {
    double value = rs.getDouble(column);
    return rs.wasNull() ? null : value;
  }

  static Double doubleOrNull(ResultSet rs, int column) throws SQLException {
    double value = rs.getDouble(column);
    return rs.wasNull() ? null : value;
  }

  /** An epoch-milliseconds column as an instant. */
  static Instant instantOrNull(ResultSet rs, String column) throws SQLException {
    long ms = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(ms);
  }

  /** An epoch-milliseconds column as an instant. */
  static Instant instantOrNull(ResultSet rs, int column) throws SQLException {
    long ms = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(ms);
  }
}
