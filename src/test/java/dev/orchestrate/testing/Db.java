package dev.orchestrate.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a state database the way a user would with sqlite3: plain SQL, own connection. Only for
 * tests about the SQLite file itself (old schemas and their migration); a test of behaviour reads
 * the state through the port ({@link TestStores}), so that it runs against any backend.
 */
public final class Db {
  private Db() {
  }

  /** The first column of every row {@code query} returns, as text. */
  public static List<String> column(Path db, String query) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }
}
