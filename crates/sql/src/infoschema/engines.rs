//! information_schema.ENGINES (also SHOW ENGINES's rows): Betula, the engines whose names
//! it accepts in ENGINE= and stores as Betula, and SEQUENCE (the read-only `seq_1_to_N` tables).

use super::{t, vc, ViewRows};
use crate::types::value::Value;

/// The columns and rows of information_schema.ENGINES (SHOW ENGINES shows the rows).
pub fn engines() -> ViewRows {
    let cols = [
        "ENGINE",
        "SUPPORT",
        "COMMENT",
        "TRANSACTIONS",
        "XA",
        "SAVEPOINTS",
    ]
    .iter()
    .map(|n| vc(n))
    .collect();
    let rows = vec![
        vec![
            t("Betula"),
            t("DEFAULT"),
            t("Write-optimized B-epsilon tree storage with compression"),
            t("YES"),
            t("NO"),
            t("YES"),
        ],
        vec![
            t("InnoDB"),
            t("NO"),
            t("Accepted in ENGINE= and stored as Betula"),
            Value::Null,
            Value::Null,
            Value::Null,
        ],
    ];
    let mut rows = rows;
    // Engines whose name a table keeps (ddl::OTHER_ENGINES): usable in ENGINE=, stored as Betula.
    for e in crate::catalog::create_table::OTHER_ENGINES {
        rows.push(vec![
            t(*e),
            t("YES"),
            t("Accepted in ENGINE=, shown again, stored as Betula"),
            t("NO"),
            t("NO"),
            t("NO"),
        ]);
    }
    // The Sequence engine's virtual tables (catalog/sequence_table.rs), read-only.
    rows.push(vec![
        t("SEQUENCE"),
        t("YES"),
        t("Generated tables filled with sequential values"),
        t("YES"),
        t("NO"),
        t("YES"),
    ]);
    (cols, rows)
}
