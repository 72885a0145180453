use super::*;
use crate::parser::{parse_create_table, parse_statement, read, Statement};

fn split(sql: &str) -> (String, TableExtras) {
    split_create(sql).unwrap().expect("has extras")
}

#[test]
fn the_clause_is_taken_out_and_the_rest_left_to_sqlparser() {
    let (rest, x) = split(
        "CREATE TABLE t (a INT, b DATE) ENGINE=InnoDB PARTITION BY RANGE (TO_DAYS(b)) \
         (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)",
    );
    assert_eq!(rest.trim(), "CREATE TABLE t (a INT, b DATE) ENGINE=InnoDB");
    let p = x.partitioning.unwrap();
    assert_eq!(p.method, Method::Range);
    assert!(p.expr.is_some() && !p.columns_form);
    assert_eq!(p.defs.len(), 2);
    assert!(matches!(&p.defs[1].values, Some(ValuesClause::LessThan(v)) if v == &[None]));
    assert!(split_create("CREATE TABLE t (a INT)").unwrap().is_none());
    // A column named like the keywords is inside the parentheses: not a clause.
    assert!(
        split_create("CREATE TABLE t (`partition` INT, retention INT)")
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_dump_s_versioned_comment_reaches_the_same_clause() {
    let dump = "CREATE TABLE `t` (\n  `a` int(11) NOT NULL,\n  PRIMARY KEY (`a`)\n) \
                ENGINE=InnoDB DEFAULT CHARSET=latin1\n/*!50100 PARTITION BY HASH (`a`)\nPARTITIONS 4 */";
    let text = read(dump).text.into_owned();
    match parse_statement(&text).unwrap() {
        Statement::CreateTableWith { extras, .. } => {
            let p = extras.partitioning.unwrap();
            assert_eq!((p.method, p.count), (Method::Hash, Some(4)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_method_and_its_options_parse() {
    let p = split("CREATE TABLE t (a INT) PARTITION BY LINEAR KEY ALGORITHM=2 (a) PARTITIONS 3")
        .1
        .partitioning
        .unwrap();
    assert!(p.linear && p.method == Method::Key && p.columns == ["a"]);
    let p = split("CREATE TABLE t (a INT) PARTITION BY KEY () PARTITIONS 2")
        .1
        .partitioning
        .unwrap();
    assert!(p.columns.is_empty());
    let p = split(
        "CREATE TABLE t (a INT, b CHAR(2)) PARTITION BY LIST COLUMNS (a, b) \
         (PARTITION p0 VALUES IN ((1,'x'),(2,'y')) COMMENT = 'c' MAX_ROWS=5 ENGINE = InnoDB)",
    )
    .1
    .partitioning
    .unwrap();
    assert!(p.columns_form && p.method == Method::List);
    let d = &p.defs[0];
    assert_eq!(d.comment.as_deref(), Some("c"));
    assert_eq!(d.options, vec![("MAX_ROWS".to_string(), "5".to_string())]);
    assert!(matches!(&d.values, Some(ValuesClause::In(v)) if v.len() == 2 && v[0].0));
    let x = split("CREATE TABLE t (d DATE) RETENTION = 30 DAY PARTITION BY RANGE COLUMNS(d) (PARTITION p0 VALUES LESS THAN ('2024-01-01'))").1;
    assert_eq!(
        x.retention,
        Some(Retention {
            amount: 30,
            unit: RetentionUnit::Day
        })
    );
}

#[test]
fn subpartitions_and_maxvalue_in_a_list_are_refused() {
    let e = split_create(
        "CREATE TABLE t (a INT) PARTITION BY RANGE (a) SUBPARTITION BY HASH (a) \
         (PARTITION p0 VALUES LESS THAN (1))",
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotSupportedYet);
    let e = split_create(
        "CREATE TABLE t (a INT) PARTITION BY RANGE (a) \
         (PARTITION p0 VALUES LESS THAN (1) (SUBPARTITION s0))",
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotSupportedYet);
    let e = split_create(
        "CREATE TABLE t (a INT) PARTITION BY LIST (a) (PARTITION p0 VALUES IN (MAXVALUE))",
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::MaxvalueInValuesIn);
}

#[test]
fn alter_table_reads_partition_operations() {
    let ops = |sql: &str| match parse_statement(sql).unwrap() {
        Statement::AlterTable { ops, .. } => ops,
        other => panic!("{other:?}"),
    };
    assert!(matches!(
        ops("ALTER TABLE t DROP PARTITION p0, p1").as_slice(),
        [AlterOp::DropPartitions(n)] if n == &["p0", "p1"]
    ));
    assert!(matches!(
        ops("ALTER TABLE t ADD PARTITION (PARTITION p9 VALUES LESS THAN (100))").as_slice(),
        [AlterOp::AddPartitions { defs, count: None }] if defs.len() == 1
    ));
    assert!(matches!(
        ops("ALTER TABLE t ADD PARTITION PARTITIONS 2").as_slice(),
        [AlterOp::AddPartitions { count: Some(2), .. }]
    ));
    assert!(matches!(
        ops("ALTER TABLE t TRUNCATE PARTITION ALL").as_slice(),
        [AlterOp::TruncatePartitions(None)]
    ));
    assert!(matches!(
        ops("ALTER TABLE t REORGANIZE PARTITION p0 INTO (PARTITION a VALUES LESS THAN (5), PARTITION b VALUES LESS THAN (10))").as_slice(),
        [AlterOp::ReorganizePartitions { from, into }] if from == &["p0"] && into.len() == 2
    ));
    assert!(matches!(
        ops("ALTER TABLE t COALESCE PARTITION 2").as_slice(),
        [AlterOp::CoalescePartitions(2)]
    ));
    assert!(matches!(
        ops("ALTER TABLE t EXCHANGE PARTITION p0 WITH TABLE d.x WITHOUT VALIDATION").as_slice(),
        [AlterOp::ExchangePartition { validate: false, table, .. }] if table == &["d", "x"]
    ));
    assert!(matches!(
        ops("ALTER TABLE t ENGINE=InnoDB PARTITION BY HASH (a) PARTITIONS 2").as_slice(),
        [AlterOp::Option(..), AlterOp::PartitionBy(_)]
    ));
    assert!(matches!(
        ops("ALTER TABLE t REMOVE PARTITIONING").as_slice(),
        [AlterOp::RemovePartitioning]
    ));
    assert!(matches!(
        ops("ALTER TABLE t RETENTION = NONE").as_slice(),
        [AlterOp::Retention(None)]
    ));
}

#[test]
fn stored_text_parses_back_with_its_clauses() {
    let (ct, x) = parse_create_table(
        "CREATE TABLE `t` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=Betula RETENTION=7 DAY\n \
         PARTITION BY RANGE  COLUMNS(`a`)\n(PARTITION `p0` VALUES LESS THAN (1) ENGINE = Betula)",
    )
    .unwrap();
    assert_eq!(ct.columns.len(), 1);
    assert!(x.partitioning.is_some() && x.retention.is_some());
}
