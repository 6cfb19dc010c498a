use super::*;

static NO_ENV: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    places: Places,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    let data = root.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let places = Places {
        server_dir: data.join("sandbox/srv"),
        data,
        home: Some(home),
    };
    Fixture {
        _dir: dir,
        root,
        places,
    }
}

fn launch<'a>(command: &'a str, args: &'a [String], cwd: Option<&'a Path>) -> Launch<'a> {
    Launch {
        command,
        args,
        cwd,
        env: &NO_ENV,
        path_var: Some(OsStr::new("/usr/bin:/bin")),
    }
}

fn granted(d: &Decided, path: &Path) -> Option<Access> {
    d.grants.iter().find(|g| g.path == path).map(|g| g.access)
}

#[test]
fn a_script_in_node_modules_grants_the_project_read_only_and_a_folder_read_write() {
    let f = fixture();
    let script = f.root.join("proj/node_modules/pkg/dist/index.js");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "").unwrap();
    let repo = f.root.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let args = vec![
        script.display().to_string(),
        format!("--repository={}", repo.display()),
    ];
    let d = decide(
        launch("sh", &args, None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    )
    .unwrap();
    assert_eq!(granted(&d, &f.root.join("proj")), Some(Access::Read));
    assert_eq!(granted(&d, &repo), Some(Access::Write));
    assert_eq!(d.plan.workdir, f.places.server_dir.join("work"));
    assert!(d.plan.write.contains(&f.places.server_dir.join("tmp")));
}

#[test]
fn a_relative_script_is_made_absolute_when_the_server_runs_elsewhere() {
    let f = fixture();
    let app = f.root.join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("server.py"), "").unwrap();
    let here = std::env::current_dir().unwrap();
    std::env::set_current_dir(&app).unwrap();
    let args = vec!["server.py".to_string()];
    let d = decide(
        launch("sh", &args, None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    );
    std::env::set_current_dir(here).unwrap();
    let d = d.unwrap();
    assert_eq!(
        d.plan.args,
        vec![app.join("server.py").display().to_string()]
    );
    assert_eq!(granted(&d, &app), Some(Access::Read));
}

#[test]
fn grants_that_hold_secrets_are_refused_naming_both_paths() {
    let f = fixture();
    let home = f.places.home.clone().unwrap();
    for (arg, exposed) in [
        ("/".to_string(), f.places.data.clone()),
        (home.display().to_string(), home.clone()),
        (f.places.data.display().to_string(), f.places.data.clone()),
    ] {
        let args = vec![arg.clone()];
        let refused = decide(
            launch("sh", &args, None),
            &Extra::default(),
            &f.places,
            Layers::default(),
        );
        let Err(GrantError::Exposes {
            grant,
            exposed: named,
            ..
        }) = refused
        else {
            panic!("{arg}: {refused:?}")
        };
        assert_eq!(grant, PathBuf::from(&arg).canonicalize().unwrap());
        assert!(
            exposed.starts_with(&named) || named.starts_with(&exposed),
            "{arg}: {named:?}"
        );
    }
    let extra = Extra {
        read: vec![home.clone()],
        write: vec![],
    };
    let refused = decide(
        launch("sh", &[], None),
        &extra,
        &f.places,
        Layers::default(),
    );
    assert!(
        matches!(refused, Err(GrantError::Exposes { .. })),
        "{refused:?}"
    );
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("grant a sub-folder"), "{message}");
    // A sub-folder of the home folder is fine.
    let extra = Extra {
        read: vec![home.join("projects")],
        write: vec![],
    };
    assert!(
        decide(
            launch("sh", &[], None),
            &extra,
            &f.places,
            Layers::default()
        )
        .is_ok()
    );
}

#[test]
fn an_unknown_command_says_so() {
    let f = fixture();
    let refused = decide(
        launch("no-such-command-here", &[], None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    );
    assert_eq!(
        refused.unwrap_err(),
        GrantError::NoCommand("no-such-command-here".into())
    );
}

#[test]
fn grants_inside_the_data_folder_or_a_credential_are_refused_but_the_servers_own_folder() {
    let f = fixture();
    let home = f.places.home.clone().unwrap();
    std::fs::write(f.places.data.join("master.key"), "k").unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "k").unwrap();
    let other = f.places.data.join("sandbox/other-1234/home");
    std::fs::create_dir_all(&other).unwrap();
    for inside in [
        f.places.data.join("master.key"),
        other,
        home.join(".ssh/id_ed25519"),
    ] {
        let mut env = std::collections::BTreeMap::new();
        env.insert("SOME_FILE".to_string(), inside.display().to_string());
        let mut l = launch("sh", &[], None);
        l.env = &env;
        let refused = decide(l, &Extra::default(), &f.places, Layers::default());
        assert!(
            matches!(refused, Err(GrantError::Exposes { .. })),
            "{inside:?}: {refused:?}"
        );
    }
    // Its own folder, under the data folder, is granted.
    let d = decide(
        launch("sh", &[], None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    );
    let d = d.unwrap();
    assert_eq!(
        granted(&d, &f.places.server_dir.join("home")),
        Some(Access::Write)
    );
}

#[test]
fn a_prefix_right_under_home_grants_only_its_bin_folder() {
    let f = fixture();
    let home = f.places.home.clone().unwrap();
    let bin = home.join(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("tool"), "#!/bin/sh\n").unwrap();
    std::fs::write(home.join(".cargo/credentials.toml"), "token").unwrap();
    let tool = bin.join("tool").display().to_string();
    let d = decide(
        launch(&tool, &[], None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    );
    let d = d.unwrap();
    assert_eq!(granted(&d, &bin), Some(Access::ReadExec));
    assert_eq!(granted(&d, &home.join(".cargo")), None, "{:?}", d.grants);
}

#[test]
fn a_hidden_folder_is_never_a_grant_but_a_file_in_it_is() {
    let f = fixture();
    let args = vec!["/tmp".to_string()];
    let refused = decide(
        launch("sh", &args, None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    );
    assert!(
        matches!(refused, Err(GrantError::Hidden { .. })),
        "{refused:?}"
    );
    let file = tempfile::NamedTempFile::new_in("/tmp").unwrap();
    let args = vec![file.path().display().to_string()];
    let d = decide(
        launch("sh", &args, None),
        &Extra::default(),
        &f.places,
        Layers::default(),
    );
    let d = d.unwrap();
    assert_eq!(
        granted(&d, &file.path().canonicalize().unwrap()),
        Some(Access::Read)
    );
}
