use super::*;

fn doc(server: &str, name: &str, description: &str) -> Document {
    Document {
        server: server.into(),
        name: name.into(),
        description: description.into(),
        ..Document::default()
    }
}

fn catalogue() -> Vec<Document> {
    vec![
        doc(
            "github",
            "create_issue",
            "Open a new issue in a repository.",
        ),
        doc("jira", "createIssue", "Creates a Jira issue in a project."),
        doc("gdrive", "delete_file", "Moves a file to the trash."),
        doc("gdrive", "list_files", "Lists the files in a folder."),
        doc("slack", "post_message", "Posts a message to a channel."),
        Document {
            details: vec!["amount: The amount to refund, in cents".into()],
            ..doc("stripe", "create_refund", "Refunds a charge.")
        },
    ]
}

fn names(index: &Index, docs: &[Document], query: &str) -> Vec<String> {
    index
        .search(query, 10, |_| true)
        .iter()
        .map(|h| format!("{}/{}", docs[h.doc].server, docs[h.doc].name))
        .collect()
}

#[test]
fn synonyms_and_stems_find_what_other_words_name() {
    let docs = catalogue();
    let index = Index::build(&docs);
    assert_eq!(
        names(&index, &docs, "get rid of that document")[0],
        "gdrive/delete_file"
    );
    assert_eq!(
        names(&index, &docs, "ping the team channel")[0],
        "slack/post_message"
    );
    assert_eq!(
        names(&index, &docs, "give back 500 cents")[0],
        "stripe/create_refund"
    );
}

#[test]
fn a_named_server_comes_first_and_ties_keep_catalogue_order() {
    let docs = catalogue();
    let index = Index::build(&docs);
    assert_eq!(
        names(&index, &docs, "new issue in jira")[0],
        "jira/createIssue"
    );
    let twice = (
        index.search("issue", 10, |_| true),
        index.search("issue", 10, |_| true),
    );
    assert_eq!(twice.0, twice.1);
}

#[test]
fn what_is_not_admitted_is_never_found_and_nothing_matches_nothing() {
    let docs = catalogue();
    let index = Index::build(&docs);
    let found = index.search("delete file trash", 10, |doc| doc != 2);
    assert!(found.iter().all(|h| h.doc != 2), "{found:?}");
    assert!(index.search("the of and", 10, |_| true).is_empty());
    assert!(index.search("zebra", 10, |_| true).is_empty());
    assert!(Index::build(&[]).search("issue", 5, |_| true).is_empty());
}

fn lexical_only(docs: &[Document]) -> Index {
    let weights = Weights {
        semantic: 0.0,
        ..Weights::default()
    };
    Index::build_with(docs, weights)
}

#[test]
#[cfg(feature = "meaning")]
fn meaning_finds_what_shares_no_word_and_fused_scores_run_to_one() {
    let docs = catalogue();
    let lexical = lexical_only(&docs);
    let fused = Index::build(&docs);
    let query = "photos and spreadsheets stored in the cloud";
    assert!(lexical.search(query, 10, |_| true).is_empty());
    let found = names(&fused, &docs, query);
    assert_eq!(found[0], "gdrive/list_files", "{found:?}");
    let hits = fused.search("new issue in jira", 10, |_| true);
    assert!(
        hits.iter().all(|h| h.score > 0.0 && h.score <= 1.0),
        "{hits:?}"
    );
    assert_eq!(docs[hits[0].doc].name, "createIssue");
}

#[test]
fn the_lexical_ranking_alone_is_the_fusion_without_meaning() {
    let docs = catalogue();
    let lexical = lexical_only(&docs);
    let hits = lexical.search("delete the file", 10, |_| true);
    assert_eq!(docs[hits[0].doc].name, "delete_file");
    assert!(hits[0].score > 1.0, "BM25 scores are not scaled: {hits:?}");
}

#[test]
#[cfg(not(feature = "meaning"))]
fn built_without_the_model_the_default_ranking_is_the_lexical_one() {
    let docs = catalogue();
    let default = Index::build(&docs);
    let lexical = lexical_only(&docs);
    for query in [
        "delete the file",
        "new issue in jira",
        "photos in the cloud",
    ] {
        assert_eq!(
            default.search(query, 10, |_| true),
            lexical.search(query, 10, |_| true),
            "{query}"
        );
    }
}
