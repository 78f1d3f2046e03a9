//! The page in a real browser: headless Chromium driven over WebDriver (chromedriver).
//! On the play page it starts a game against the computer from the first screen, sees a
//! piece's destinations and why another piece or square cannot be played, moves by keyboard
//! and by typing, sees the computer answer with its analysis, reloads and keeps the game,
//! analyses an earlier position live until Stop, plays a multi-jump hop by hop and an Othello
//! game with a pass, and fits a 400 px wide window. On the dashboard
//! it charts two runs overlaid, reads values by hovering, smooths them, sees a new run appear
//! and a run go live and grow, and opens sample games on their own game's board. Without a
//! browser it skips with a note, except where every test must run
//! (`CHECKERS_ZERO_REQUIRE_ALL=1`), where it fails.

use crate::common;
use checkers_zero::gui::{GuiOptions, Server};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The first of `names` found on the PATH or as an absolute path.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names.iter().find_map(|name| {
        let direct = Path::new(name);
        if direct.is_absolute() {
            return direct.is_file().then(|| direct.to_path_buf());
        }
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// chromedriver on a free port, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_driver(driver: &Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Driver { child, url }
}

/// Runs `script` (a function body) in the page; its value.
async fn run_js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}

/// Polls `check` (a JavaScript expression) until it is truthy; its value.
async fn until(c: &Client, what: &str, check: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v = c
            .execute(&format!("return ({check});"), vec![])
            .await
            .unwrap();
        let truthy =
            !matches!(&v, Value::Null | Value::Bool(false)) && v != json!(0) && v != json!("");
        if truthy {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Clicks the element `css` names. The board is redrawn whole whenever the server's events
/// arrive, which may fall between finding a square and clicking it: the click then meets a
/// stale element, or one the redraw has not yet laid out (on a loaded machine), and is
/// retried on the redrawn one.
async fn click(c: &Client, css: &str) {
    let mut last = None;
    for _ in 0..20 {
        let e = c
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element {css}: {e}"));
        match e.click().await {
            Err(e) if mid_redraw(&e) => {
                last = Some(e);
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            r => return r.unwrap_or_else(|e| panic!("clicking {css}: {e}")),
        }
    }
    panic!("{css} could not be clicked at any of 20 tries: {last:?}");
}

/// Whether a click failed because the page was being redrawn under it.
fn mid_redraw(e: &fantoccini::error::CmdError) -> bool {
    use fantoccini::error::{CmdError, ErrorStatus};
    let not_laid_out = [
        ErrorStatus::ElementClickIntercepted,
        ErrorStatus::ElementNotInteractable,
    ];
    e.is_stale_element_reference()
        || matches!(e, CmdError::Standard(w) if not_laid_out.contains(&w.error))
}

async fn square(c: &Client, n: u32) {
    click(c, &format!("#board [data-square=\"{n}\"]:not(.dest)")).await;
}

/// The destination squares shown.
async fn destinations(c: &Client) -> Value {
    run_js(c, "return [...document.querySelectorAll('#board .dest')].map(e => +e.dataset.square).sort((a, b) => a - b);").await
}

async fn message(c: &Client) -> String {
    c.find(Locator::Css("#message"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn choose(c: &Client, css: &str, value: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .select_by_value(value)
        .await
        .unwrap_or_else(|e| panic!("{css} = {value}: {e}"));
}

async fn fill(c: &Client, css: &str, text: &str) {
    let e = c.find(Locator::Css(css)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(text).await.unwrap();
}

/// The state of the game on the play page, as the server last sent it.
async fn game_state(c: &Client) -> Value {
    let id = run_js(
        c,
        "return new URLSearchParams(location.search).get('game');",
    )
    .await;
    c.execute(
        "return fetch('/api/games/' + arguments[0]).then(r => r.json());",
        vec![id],
    )
    .await
    .unwrap()
}

async fn drive(c: &Client, url: &str, shot: &Path) {
    c.goto(url).await.unwrap();
    until(c, "the first board", "document.body.dataset.ready === '1'").await;

    // The first screen: the computer at the default level, one click away; the person is
    // Black and moves first.
    let level = until(
        c,
        "the level",
        "document.querySelector('#level').selectedOptions[0]?.textContent",
    )
    .await;
    assert_eq!(level, "Casual");
    click(c, "#new-game").await;
    until(c, "a new game", "document.querySelectorAll('#moves .move').length === 0 && new URLSearchParams(location.search).get('game')").await;
    let s = game_state(c).await;
    assert_eq!(
        s["players"],
        json!({"black": "human", "white": "az:searches=32,temperature=0.5,check=0,endgame=0"})
    );

    // A piece's destinations.
    square(c, 9).await;
    until(
        c,
        "9's destinations",
        "document.querySelectorAll('#board .dest').length",
    )
    .await;
    assert_eq!(destinations(c).await, json!([13, 14]));
    // An unreachable square: the reason, said by the page without a request.
    square(c, 18).await;
    let m = until(
        c,
        "the unreachable-square message",
        "document.querySelector('#message').textContent",
    )
    .await;
    assert_eq!(m, "The piece on 9 cannot reach 18: it can go to 13, 14.");
    // A piece that cannot move says why.
    square(c, 1).await;
    until(
        c,
        "the reason",
        "document.querySelector('#message').textContent.includes('no legal move')",
    )
    .await;
    assert!(
        message(c)
            .await
            .to_lowercase()
            .contains("the piece on 1 has no legal move")
    );

    // A move by the keyboard: Tab to the board's square 11 (focused here), Enter picks it,
    // the arrow keys walk to 15 and Enter plays there. The computer answers.
    run_js(
        c,
        "document.querySelector('#board [data-square=\"11\"]').focus();",
    )
    .await;
    // Enter, then (Black at the bottom) ArrowUp to 15, then Enter.
    c.active_element()
        .await
        .unwrap()
        .send_keys("\u{E007}")
        .await
        .unwrap();
    until(
        c,
        "11's destinations",
        "document.querySelectorAll('#board .dest').length",
    )
    .await;
    c.active_element()
        .await
        .unwrap()
        .send_keys("\u{E013}")
        .await
        .unwrap();
    let focused = run_js(c, "return document.activeElement.dataset.square;").await;
    assert_eq!(focused, "15", "the arrow went from 11 up to 15");
    c.active_element()
        .await
        .unwrap()
        .send_keys("\u{E007}")
        .await
        .unwrap();
    until(c, "the agent's reply", "document.querySelectorAll('#moves .move').length === 2 && document.body.dataset.thinking === '0'").await;
    let first = run_js(
        c,
        "return document.querySelector('#moves .move[data-ply=\"1\"]').textContent;",
    )
    .await;
    assert_eq!(first, "11-15");
    // The computer's thinking is hidden while it plays: no evaluation, bar, graph or arrows
    // tell the player what it saw, until they ask to see it (a choice a reload keeps).
    let hidden = run_js(
        c,
        "return [document.querySelectorAll('#analysis .eval').length, \
         document.querySelector('#eval-bar').hidden, \
         document.querySelector('#eval-graph').hasAttribute('hidden'), \
         document.querySelectorAll('#board .arrow').length, \
         document.querySelector('#analysis .placeholder')?.textContent ?? ''];",
    )
    .await;
    assert_eq!(
        hidden.as_array().unwrap()[..4],
        [json!(0), json!(true), json!(true), json!(0)],
        "{hidden}"
    );
    assert!(
        hidden[4]
            .as_str()
            .unwrap()
            .contains("hidden while it plays you"),
        "{hidden}"
    );
    click(c, "#show-thinking").await;
    until(
        c,
        "the computer's analysis, shown",
        "document.querySelector('#analysis .eval') !== null && !document.querySelector('#eval-bar').hidden",
    )
    .await;
    // A move typed in the box: an illegal one is refused with the reason, a legal one plays.
    fill(c, "#move-input", "9-18").await;
    click(c, "#move-form button[type=submit]").await;
    until(
        c,
        "the refusal",
        "document.querySelector('#message').textContent.includes('not legal')",
    )
    .await;
    let legal = game_state(c).await["legal"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    fill(c, "#move-input", &legal).await;
    c.find(Locator::Css("#move-input"))
        .await
        .unwrap()
        .send_keys("\u{E007}")
        .await
        .unwrap();
    until(c, "the typed move and the reply", "document.querySelectorAll('#moves .move').length === 4 && document.body.dataset.thinking === '0'").await;
    // The value on the plain scale (Black's expected result), its own units in the tooltip.
    let value = until(
        c,
        "the agent's analysis",
        "document.querySelector('#analysis .eval strong')?.textContent",
    )
    .await;
    let value = value.as_str().unwrap();
    let percent = value
        .strip_prefix("Black ")
        .and_then(|v| v.strip_suffix('%'))
        .and_then(|v| v.parse::<u32>().ok());
    assert!(percent.is_some_and(|p| p <= 100), "{value}");
    let units = run_js(
        c,
        "return document.querySelector('#analysis .eval strong').title;",
    )
    .await;
    assert!(
        units
            .as_str()
            .unwrap()
            .contains("for Black in the network's value"),
        "{units}"
    );
    assert!(
        c.find(Locator::Css("#eval-bar"))
            .await
            .unwrap()
            .attr("hidden")
            .await
            .unwrap()
            .is_none()
    );
    c.screenshot()
        .await
        .map(|png| std::fs::write(shot, png).unwrap())
        .unwrap();

    // A reload keeps the game, its address and who plays it.
    let address = c.current_url().await.unwrap();
    c.refresh().await.unwrap();
    until(c, "the board after a reload", "document.body.dataset.ready === '1' && document.querySelectorAll('#moves .move').length === 4").await;
    assert_eq!(c.current_url().await.unwrap(), address);
    let status = until(
        c,
        "the status",
        "document.querySelector('#status').textContent",
    )
    .await;
    assert!(status.as_str().unwrap().contains("your move"), "{status}");
    // The evaluation bar and graph the computer's moves built come back with it (the
    // server keeps each position's last analysis).
    until(
        c,
        "the evaluation bar and graph after a reload",
        "!document.querySelector('#eval-bar').hidden && \
         !document.querySelector('#eval-graph').hasAttribute('hidden') && \
         document.querySelectorAll('#eval-graph .graph-line').length === 1",
    )
    .await;

    // Live analysis of an earlier position: it updates while it searches, and Stop ends it.
    click(c, "#nav-first").await;
    until(
        c,
        "the start position",
        "document.querySelector('#viewing').hidden === false",
    )
    .await;
    click(c, "#analyse").await;
    until(
        c,
        "a live update",
        "document.querySelector('#analysis .meta')?.textContent.includes('searching')",
    )
    .await;
    click(c, "#stop").await;
    until(c, "the final analysis", "document.querySelector('#analysis .meta')?.textContent.includes('final') && document.body.dataset.thinking === '0'").await;
    let meta = c
        .find(Locator::Css("#analysis .meta"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(meta.contains("this position"), "{meta}");
    // Back at the game, the analysis names the position it searched.
    click(c, "#nav-last").await;
    until(
        c,
        "the analysis named by its position",
        "document.querySelector('#analysis .meta')?.textContent.includes('the starting position')",
    )
    .await;

    // A multi-jump, hop by hop, between two people from a FEN.
    choose(c, "#opponent-mode", "human").await;
    run_js(c, "document.querySelector('.start-options').open = true;").await;
    choose(c, "#start", "fen").await;
    fill(c, "#fen", "B:W14,23,30:B9,1").await;
    click(c, "#new-game").await;
    until(
        c,
        "the FEN position",
        "document.querySelectorAll('#moves .move').length === 0",
    )
    .await;
    square(c, 9).await;
    until(
        c,
        "the first hop",
        "document.querySelectorAll('#board .dest').length",
    )
    .await;
    assert_eq!(destinations(c).await, json!([18, 27]));
    square(c, 18).await;
    until(
        c,
        "the second hop",
        "[...document.querySelectorAll('#board .dest')].some(e => e.dataset.square === '27')",
    )
    .await;
    square(c, 27).await;
    let played = until(c, "the multi-jump in the move list", "document.querySelector('#moves .move') && document.querySelector('#moves .move').textContent").await;
    assert!(played.as_str().unwrap().contains("9x18x27"), "{played}");

    // Othello between two people, from a position where White must pass: the page says
    // so and offers Pass; then Black's c1 takes White's last disc.
    choose(c, "#game-kind", "othello").await;
    choose(c, "#start", "fen").await;
    let position = format!("XO{} O", "-".repeat(62));
    fill(c, "#fen", &position).await;
    click(c, "#new-game").await;
    until(c, "the pass", "!document.querySelector('#pass').hidden").await;
    assert_eq!(game_state(c).await["game"], "othello");
    square(c, 3).await;
    let m = until(
        c,
        "the refusal",
        "document.querySelector('#message').textContent",
    )
    .await;
    assert!(m.as_str().unwrap().contains("must pass"), "{m}");
    click(c, "#pass").await;
    until(
        c,
        "Black's move",
        "document.querySelectorAll('#board .legal').length === 1",
    )
    .await;
    square(c, 3).await;
    let result = until(c, "the result", "!document.querySelector('#result').hidden && document.querySelector('#result').textContent").await;
    assert!(result.as_str().unwrap().contains("Black wins"), "{result}");
    // The final disc count, in the result and the status.
    assert!(
        result.as_str().unwrap().ends_with("(Black 3 · White 0)"),
        "{result}"
    );
    let status = run_js(c, "return document.querySelector('#status').textContent;").await;
    assert!(
        status.as_str().unwrap().contains("Black 3 · White 0"),
        "{status}"
    );
    let moves = game_state(c).await["moves_text"].clone();
    assert_eq!(moves, "c1");
    // The rules tutorial follows the game chosen: Othello's first lesson, played.
    click(c, "#tab-tutorial").await;
    until(c, "Othello's tutorial", "document.querySelector('#tutorial-title').textContent === 'Rules of Othello' && document.querySelectorAll('#board .legal').length === 4").await;
    click(c, "#board .legal").await;
    until(
        c,
        "the lesson's next step",
        "document.querySelector('#lesson-task').textContent.includes('Now White')",
    )
    .await;
    click(c, "#tab-play").await;
    choose(c, "#game-kind", "checkers").await;
    choose(c, "#start", "initial").await;
}

/// Every square the arrow keys reach from the first, each key pressed on each square reached
/// (as the board's own keydown handler sees them), sorted.
async fn reached_by_arrows(c: &Client) -> Value {
    run_js(
        c,
        "const key = (square, k) => { \
           const el = document.querySelector(`#board [data-square=\"${square}\"]`); \
           el.focus(); \
           el.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true})); \
           return +document.activeElement.closest('[data-square]').dataset.square; }; \
         const first = +document.querySelector('#board [data-square]').dataset.square; \
         const seen = new Set([first]); const todo = [first]; \
         while (todo.length) { const s = todo.pop(); \
           for (const k of ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']) { \
             const n = key(s, k); if (!seen.has(n)) { seen.add(n); todo.push(n); } } } \
         return [...seen].sort((a, b) => a - b);",
    )
    .await
}

/// Whether the element `css` is displayed, from its computed style (a `hidden` property
/// set on an SVG element, for one, hides nothing).
async fn displayed(c: &Client, css: &str) -> bool {
    c.execute(
        "const e = document.querySelector(arguments[0]); \
         return !!e && getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().height > 0;",
        vec![json!(css)],
    )
    .await
    .unwrap()
        == json!(true)
}

/// The board's details: every square reachable by the arrow keys in both games; after a
/// review the evaluation graph shows and the bar gives Black's expected result in percent,
/// clear of the New game panel and not carried into the tutorial; Othello's disc count in
/// the status and beside each player.
#[test]
fn the_board_shows_what_it_promises() {
    crate::common::without_installed_databases();
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let all = |n: u64| json!((1..=n).collect::<Vec<_>>());
            assert_eq!(reached_by_arrows(&c).await, all(32), "checkers' squares");

            // A game between people, reviewed.
            let pdn = "1. 11-15 23-19 2. 8-11 22-17 3. 9-13 17-14 4. 10x17 21x14 *";
            load_pdn(&c, pdn, 8).await;
            assert!(
                !displayed(&c, "#eval-graph").await,
                "no graph before any analysis"
            );
            click(&c, "#review").await;
            until(
                &c,
                "the review",
                "document.querySelector('#message').textContent.startsWith('Review done')",
            )
            .await;
            assert!(
                displayed(&c, "#eval-graph").await,
                "the graph after a review"
            );
            assert!(displayed(&c, "#eval-bar").await, "the bar after a review");
            // The review's summary: each side's accuracy and its costly moves counted; moves
            // are named by move number, and the search's details are in words.
            assert!(
                displayed(&c, "#review-summary").await,
                "the review's summary"
            );
            let rows = run_js(
                &c,
                "return [...document.querySelectorAll('#review-summary tbody tr')].map(r => \
                       [...r.cells].map(c => c.textContent));",
            )
            .await;
            let rows = rows.as_array().unwrap();
            assert_eq!(rows.len(), 2, "{rows:?}");
            for (row, side) in rows.iter().zip(["Black", "White"]) {
                assert_eq!(row[0], side, "{row}");
                let accuracy = row[1].as_str().unwrap();
                let a: u32 = accuracy.strip_suffix('%').unwrap().parse().unwrap();
                assert!(a <= 100, "{row}");
                assert_eq!(row.as_array().unwrap().len(), 5, "{row}");
            }
            let said = message(&c).await;
            assert!(!said.contains("ply"), "{said}");
            // A click on the graph shows that position, and the panel describes it (the
            // review's analysis there), not the last one.
            run_js(
                &c,
                "const g = document.querySelector('#eval-graph'); const r = g.getBoundingClientRect();                  g.dispatchEvent(new MouseEvent('click', {clientX: r.left + r.width / 4, clientY: r.top + 5, bubbles: true}));",
            )
            .await;
            let meta = until(
                &c,
                "the panel on the clicked position",
                "!document.querySelector('#viewing').hidden && document.querySelector('#analysis .meta')?.textContent",
            )
            .await;
            assert!(meta.as_str().unwrap().contains("this position"), "{meta}");
            let details = until(
                &c,
                "the details",
                "document.querySelector('#analysis .summary')?.textContent",
            )
            .await;
            let details = details.as_str().unwrap();
            assert!(
                details.contains("depth ") && !details.contains("nodes"),
                "{details}"
            );
            let text = run_js(
                &c,
                "return document.querySelector('#eval-text').textContent;",
            )
            .await;
            let percent = text.as_str().unwrap();
            let number: u32 = percent
                .parse()
                .unwrap_or_else(|_| panic!("the bar's number: {text}"));
            assert!(number <= 100, "{percent}");
            // The number reads upright, at a readable size, inside the bar.
            let shown = run_js(
                &c,
                "const t = document.querySelector('#eval-text'); const s = getComputedStyle(t);                  const [b, r] = [document.querySelector('#eval-bar').getBoundingClientRect(), t.getBoundingClientRect()];                  const range = document.createRange(); range.selectNodeContents(t); const g = range.getBoundingClientRect();                  return [s.writingMode, s.transform, parseFloat(s.fontSize), g.left >= b.left && g.right <= b.right && r.top >= b.top && r.bottom <= b.bottom];",
            )
            .await;
            assert_eq!(shown[0], "horizontal-tb", "{shown}");
            assert_eq!(shown[1], "none", "{shown}");
            assert!(shown[2].as_f64().unwrap() >= 12.0, "{shown}");
            assert_eq!(shown[3], true, "the number inside the bar: {shown}");
            let gap = run_js(
                &c,
                "return document.querySelector('#setup-panel').getBoundingClientRect().right \
                     - document.querySelector('#eval-bar').getBoundingClientRect().left;",
            )
            .await;
            assert!(
                gap.as_f64().unwrap() <= 0.0,
                "the bar overlaps the panel by {gap} px"
            );
            click(&c, "#tab-tutorial").await;
            until(
                &c,
                "the tutorial",
                "document.body.dataset.tab === 'tutorial'",
            )
            .await;
            assert!(!displayed(&c, "#eval-bar").await, "no bar in the tutorial");
            click(&c, "#tab-play").await;
            until(&c, "the play page", "document.body.dataset.tab === 'play'").await;
            assert!(displayed(&c, "#eval-bar").await, "the game's bar again");

            // Othello: its discs counted from the first position.
            choose(&c, "#game-kind", "othello").await;
            click(&c, "#new-game").await;
            until(
                &c,
                "an Othello game",
                "document.querySelectorAll('#board .legal').length === 4",
            )
            .await;
            let status = until(
                &c,
                "the status",
                "document.querySelector('#status').textContent",
            )
            .await;
            assert!(
                status.as_str().unwrap().contains("Black 2 · White 2"),
                "{status}"
            );
            let counts = run_js(
                &c,
                "return [...document.querySelectorAll('#players .count')].map(e => e.textContent);",
            )
            .await;
            assert_eq!(counts, json!(["2", "2"]));
            assert_eq!(reached_by_arrows(&c).await, all(64), "Othello's squares");

            // A win alpha-beta proves is said in words, on the arrow and in the table, not
            // as the large number that ranks it.
            choose(&c, "#game-kind", "checkers").await;
            choose(&c, "#opponent-mode", "human").await;
            run_js(&c, "document.querySelector('.start-options').open = true;").await;
            choose(&c, "#start", "fen").await;
            fill(&c, "#fen", "B:WK10,8:BK15,7").await;
            click(&c, "#new-game").await;
            until(
                &c,
                "the position",
                "document.querySelector('#board [data-square=\"15\"] circle')",
            )
            .await;
            click(&c, "#hint").await;
            let labels = until(
                &c,
                "the hint's arrows",
                "document.querySelectorAll('#board .arrow-label').length && \
                 [...document.querySelectorAll('#board .arrow-label text')].map(e => e.textContent)",
            )
            .await;
            assert_eq!(labels[0], "win", "{labels}");
            let best = until(&c, "the score table", "document.querySelector('#analysis table.scores tbody td:nth-child(2)')?.textContent").await;
            assert_eq!(best, "Black: win in 3 moves");

            // Drag and drop: 9 carried to 13 plays 9-13 (a game between people from here).
            fill(&c, "#fen", "B:W29:B9,10").await;
            click(&c, "#new-game").await;
            until(&c, "the position", "document.querySelector('#board [data-square=\"29\"] circle') && !document.querySelector('#board [data-square=\"1\"] circle')").await;
            run_js(&c, "const at = (n) => document.querySelector(`#board [data-square=\"${n}\"]`).getBoundingClientRect(); \
                 const [a, b] = [at(9), at(13)]; \
                 const point = (r) => ({clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, bubbles: true, pointerId: 1, button: 0, isPrimary: true}); \
                 const piece = document.querySelector('#board [data-square=\"9\"] .piece'); \
                 piece.dispatchEvent(new PointerEvent('pointerdown', point(a))); \
                 piece.dispatchEvent(new PointerEvent('pointermove', point(b)));").await;
            // Carried, the piece is painted over every square (SVG paints in document order).
            let on_top = run_js(&c, "const square = document.querySelector('#board .piece.dragged')?.closest('[data-square]'); \
                 return !!square && square === square.parentNode.lastElementChild;").await;
            assert_eq!(on_top, json!(true));
            run_js(&c, "const r = document.querySelector('#board [data-square=\"13\"]').getBoundingClientRect(); \
                 document.querySelector('#board').dispatchEvent(new PointerEvent('pointerup', \
                   {clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, bubbles: true, pointerId: 1, button: 0, isPrimary: true}));").await;
            let played = until(
                &c,
                "the dropped move",
                "document.querySelector('#moves .move')?.textContent",
            )
            .await;
            assert_eq!(played, "9-13");

            // Two moves to one square (9-14, 10-14): their labels stand apart.
            fill(&c, "#fen", "B:W29:B9,10").await;
            click(&c, "#new-game").await;
            until(&c, "the position", "document.querySelector('#board [data-square=\"29\"] circle') && !document.querySelector('#board [data-square=\"1\"] circle')").await;
            click(&c, "#hint").await;
            let overlaps = until(
                &c,
                "four labelled arrows",
                "document.querySelectorAll('#board .arrow-label').length === 4 && (() => { \
                   const r = [...document.querySelectorAll('#board .arrow-label rect')].map(e => e.getBoundingClientRect()); \
                   let n = 0; \
                   for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) \
                     if (r[i].left < r[j].right && r[j].left < r[i].right && r[i].top < r[j].bottom && r[j].top < r[i].bottom) n++; \
                   return `${n}`; })()",
            )
            .await;
            assert_eq!(overlaps, "0", "labels printed over each other");
            // The hint gave its three best moves (the Lines choice), each with its value
            // on the plain scale, or its proof in words, and its line.
            let lines = run_js(&c, "return [...document.querySelectorAll('#analysis ol.lines li')].map(e => e.textContent);").await;
            let lines = lines.as_array().unwrap();
            assert_eq!(lines.len(), 3, "{lines:?}");
            for line in lines {
                let line = line.as_str().unwrap();
                let plain = line.starts_with("Black ") && line.contains("% ");
                let proven = ["win in", "loss in", "draw"]
                    .iter()
                    .any(|w| line.starts_with(w));
                assert!(plain || proven, "{line}");
            }
        },
    );
}

/// The texts shown clipped or overflowing their box: each visible element holding text whose
/// content is wider or taller than its box (a clamped help that opens on a click, marked
/// `data-expands`, aside), each drop-down whose chosen option's text is wider than the room
/// beside its arrow, and each empty field whose placeholder is wider than the field. Also the page
/// itself, if it scrolls sideways.
async fn clipped_texts(c: &Client) -> Value {
    run_js(c, "const out = []; \
         const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'; \
         const name = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`; \
         for (const e of document.querySelectorAll('body *')) { \
           if (!shown(e) || e.closest('svg') || e.hasAttribute('data-expands')) continue; \
           const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()); \
           if (!own || e.tagName === 'SELECT' || e.tagName === 'OPTION' || e.tagName === 'TEXTAREA') continue; \
           if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) \
             out.push(`${name(e)}: ${e.scrollWidth} > ${e.clientWidth}: ${e.textContent.trim().slice(0, 40)}`); \
           const style = getComputedStyle(e); \
           if (style.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 1 && e.clientHeight > 0) \
             out.push(`${name(e)}: ${e.scrollHeight} high > ${e.clientHeight}: ${e.textContent.trim().slice(0, 40)}`); \
         } \
         const canvas = document.createElement('canvas').getContext('2d'); \
         for (const s of document.querySelectorAll('select')) { \
           if (!shown(s) || !s.selectedOptions[0]) continue; \
           const style = getComputedStyle(s); \
           canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`; \
           const text = canvas.measureText(s.selectedOptions[0].textContent).width; \
           const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16; \
           if (text > room + 1) out.push(`${name(s)}: '${s.selectedOptions[0].textContent}' ${Math.round(text)} > ${Math.round(room)}`); \
         } \
         for (const i of document.querySelectorAll('input[placeholder]')) { \
           if (!shown(i) || i.value || !i.placeholder) continue; \
           const style = getComputedStyle(i); \
           canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`; \
           const text = canvas.measureText(i.placeholder).width; \
           const room = i.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight); \
           if (text > room + 1) out.push(`${name(i)}: placeholder '${i.placeholder}' ${Math.round(text)} > ${Math.round(room)}`); \
         } \
         if (document.documentElement.scrollWidth > innerWidth) \
           out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${innerWidth}`); \
         return out;").await
}

/// No text is clipped, on the play page (with a game and the computer's analysis), the
/// tutorial and the dashboard, in a wide window and a phone's.
#[test]
fn no_text_is_clipped() {
    // A phone's scrollbars float over the page; a desktop browser's narrow window has one
    // that takes its width, which the last run gives it.
    for (window, scrollbar) in [
        ("1400,1000", false),
        ("400,860", false),
        ("400,860,desktop", true),
    ] {
        with_browser(
            Path::new("tests/data/runs"),
            window,
            move |c, url| async move {
                c.goto(&url).await.unwrap();
                until(&c, "the first board", "document.body.dataset.ready === '1'").await;
                if scrollbar {
                    let bar = until(
                        &c,
                        "the scrollbar",
                        "innerWidth - document.documentElement.clientWidth",
                    )
                    .await;
                    assert!(bar.as_i64().unwrap() > 0, "{bar}");
                }
                let window = if scrollbar {
                    format!("{window}+scrollbar")
                } else {
                    window.to_string()
                };
                let wide = run_js(
                    &c,
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
                )
                .await;
                assert_eq!(
                    wide,
                    json!(0),
                    "{window}: the page is wider than the window"
                );
                let mut found = Vec::new();
                let mut look = |page: &str, list: Value| {
                    for item in list.as_array().unwrap() {
                        found.push(format!("{window} {page}: {}", item.as_str().unwrap()));
                    }
                };
                look("play", clipped_texts(&c).await);
                click(&c, "#hint").await;
                until(&c, "the hint", "document.querySelector('#analysis .eval') && document.body.dataset.thinking === '0'").await;
                look("play, analysed", clipped_texts(&c).await);
                // The form of an agent set up by hand, for each kind.
                choose(&c, "#opponent-mode", "custom").await;
                for kind in ["az", "alphabeta", "mcts"] {
                    choose(&c, "#opponent", kind).await;
                    look(&format!("play, {kind}'s form"), clipped_texts(&c).await);
                }
                choose(&c, "#opponent-mode", "level").await;
                // The named ballot whose choice reads longest, and the board editor of each game.
                open_start_options(&c).await;
                choose(&c, "#start", "ballot").await;
                let longest = run_js(&c, "return [...document.querySelectorAll('#ballot option')].sort((a, b) => b.text.length - a.text.length)[0].value;").await;
                choose(&c, "#ballot", longest.as_str().unwrap()).await;
                look("play, a named ballot", clipped_texts(&c).await);
                choose(&c, "#start", "initial").await;
                click(&c, "#edit-position").await;
                look("play, the editor", clipped_texts(&c).await);
                choose(&c, "#game-kind", "othello").await;
                look("play, Othello's editor", clipped_texts(&c).await);
                click(&c, "#editor-cancel").await;
                choose(&c, "#game-kind", "checkers").await;
                // A record's side lines, one inside another, a position of one viewed.
                let pdn = "1. 11-15 23-19 (1... 22-18 2. 15x22 25x18 (2... 26x17) 3. 8-11) 2. 8-11 22-17 *";
                load_pdn(&c, pdn, 9).await;
                click(&c, "#moves .side-line .move[data-ply='5']").await;
                until(
                    &c,
                    "a side line's position",
                    "document.querySelector('#status').textContent.includes('in a side line')",
                )
                .await;
                look("play, side lines", clipped_texts(&c).await);
                click(&c, "#tab-tutorial").await;
                until(
                    &c,
                    "the tutorial",
                    "document.body.dataset.tab === 'tutorial'",
                )
                .await;
                look("tutorial", clipped_texts(&c).await);
                click(&c, "#tab-games").await;
                until(
                    &c,
                    "the games",
                    "document.querySelectorAll('#games-table tbody tr').length",
                )
                .await;
                look("games", clipped_texts(&c).await);
                click(&c, "#tab-dashboard").await;
                until(
                    &c,
                    "the runs",
                    "document.querySelectorAll('#runs tr[data-run]').length",
                )
                .await;
                tokio::time::sleep(Duration::from_millis(500)).await;
                look("dashboard", clipped_texts(&c).await);
                assert!(found.is_empty(), "clipped:\n{}", found.join("\n"));
            },
        );
    }
}

/// Opens the New game panel's Start position options.
async fn open_start_options(c: &Client) {
    run_js(
        c,
        "document.querySelector('details.start-options').open = true;",
    )
    .await;
}

/// Opens the board editor on the play page (the game on the board its first position).
async fn open_editor(c: &Client) {
    open_start_options(c).await;
    click(c, "#edit-position").await;
    until(
        c,
        "the editor",
        "document.querySelector('#status').textContent.startsWith('Editing')",
    )
    .await;
}

/// Puts `piece` (the palette's id suffix, e.g. `black-king`) on each of `squares` by clicks.
async fn place(c: &Client, piece: &str, squares: &[u32]) {
    click(c, &format!("#palette-{piece}")).await;
    for &n in squares {
        square(c, n).await;
    }
}

/// The piece on each square of the board drawn now (its pieces' classes), by square.
async fn board_pieces(c: &Client) -> Value {
    run_js(c, "return Object.fromEntries([...document.querySelectorAll('#board [data-square]')].map(g => [g.dataset.square, g.querySelector('.piece, .disc') ? [...g.querySelector('.piece, .disc').classList].join(' ') : null]));").await
}

/// The board editor sets up a position by clicks (and the keyboard) in both games, and Play
/// from here starts a game at exactly that position, the form's players playing it.
#[test]
fn the_board_editor_sets_up_positions_in_both_games() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            choose(&c, "#opponent-mode", "human").await;
            open_editor(&c).await;
            // The editor starts from the game's position: the board is unchanged.
            let game_board = game_state(&c).await["board"].clone();
            let shown = board_pieces(&c).await;
            let occupied = |b: &Value| {
                b.as_object()
                    .unwrap()
                    .values()
                    .filter(|v| !v.is_null())
                    .count()
            };
            let pieces = game_board
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c.is_object() && !c["piece"].is_null())
                .count();
            assert_eq!(occupied(&shown), pieces);
            click(&c, "#editor-clear").await;
            assert_eq!(occupied(&board_pieces(&c).await), 0);
            place(&c, "black-man", &[9, 10]).await;
            place(&c, "black-king", &[1]).await;
            place(&c, "white-man", &[14, 23]).await;
            place(&c, "white-king", &[32]).await;
            // A second click with the same piece empties the square: 10 again.
            place(&c, "black-man", &[10]).await;
            // The keyboard: Enter on the square in focus puts the chosen piece there.
            click(&c, "#palette-white-man").await;
            run_js(&c, "const g = document.querySelector('#board [data-square=\"28\"]'); g.focus(); \
                        g.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));").await;
            choose(&c, "#editor-turn", "black").await;
            let before = game_state(&c).await["id"].clone();
            click(&c, "#editor-play").await;
            until(&c, "the new game", &format!("new URLSearchParams(location.search).get('game') !== '{before}' && document.querySelector('#editor').hidden")).await;
            let state = game_state(&c).await;
            assert_eq!(state["start_fen"], "B:W14,23,28,K32:BK1,9");
            assert_eq!(
                (
                    state["players"]["black"].as_str(),
                    state["players"]["white"].as_str()
                ),
                (Some("human"), Some("human"))
            );
            // The capture the position holds is the game's to play.
            assert_eq!(state["legal"][0]["captured"], json!([14, 23]));

            // Othello: the chosen game's start position, edited, White to move.
            choose(&c, "#opponent-mode", "level").await;
            choose(&c, "#user-color", "black").await;
            open_editor(&c).await;
            choose(&c, "#game-kind", "othello").await;
            until(&c, "Othello's palette", "document.querySelector('#palette-black-disc') && !document.querySelector('#palette-black-king')").await;
            place(&c, "white-disc", &[1, 29]).await;
            place(&c, "empty", &[37]).await;
            choose(&c, "#editor-turn", "white").await;
            click(&c, "#editor-play").await;
            until(
                &c,
                "the Othello game",
                "document.querySelector('#editor').hidden",
            )
            .await;
            let state = game_state(&c).await;
            let mut squares = vec!['-'; 64];
            for (sq, disc) in [(1, 'O'), (28, 'O'), (29, 'O'), (36, 'X')] {
                squares[sq - 1] = disc;
            }
            let expected: String = squares.into_iter().collect();
            assert_eq!(
                (state["game"].as_str(), state["start_fen"].as_str()),
                (Some("othello"), Some(format!("{expected} O").as_str()))
            );
            assert_eq!(state["players"]["black"], "human");
            assert_ne!(state["players"]["white"], "human");
        },
    );
}

/// A position the rules refuse is not played: the server's reason shows on the page and the
/// editor stays, with the game on the server unchanged.
#[test]
fn the_board_editor_shows_the_servers_refusal() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let before = game_state(&c).await["id"].clone();
            open_editor(&c).await;
            click(&c, "#editor-clear").await;
            // A man put on its king row is crowned there, as the rules would crown it, and
            // the message says so (the server never sees a man it would refuse).
            place(&c, "black-man", &[30]).await;
            place(&c, "white-man", &[2]).await;
            let pieces = board_pieces(&c).await;
            assert!(pieces["30"].as_str().unwrap().contains("king"), "{pieces}");
            assert!(pieces["2"].as_str().unwrap().contains("king"), "{pieces}");
            assert_eq!(
                message(&c).await,
                "A White man on 2 is crowned: 2 is its king row."
            );
            click(&c, "#editor-clear").await;
            place(&c, "black-man", &[9]).await;
            click(&c, "#editor-play").await;
            let refusal = until(
                &c,
                "the refusal",
                "document.querySelector('#message.error')?.textContent",
            )
            .await;
            let refusal = refusal.as_str().unwrap();
            assert!(refusal.contains("White has no pieces"), "{refusal}");
            assert!(!refusal.contains('\n'), "{refusal}");
            assert!(displayed(&c, "#editor").await);
            assert_eq!(game_state(&c).await["id"], before);
            // Emptied, the board's sides have no pieces: another of the server's reasons.
            click(&c, "#editor-clear").await;
            assert_eq!(message(&c).await, "");
            click(&c, "#editor-play").await;
            let refusal = until(
                &c,
                "the second refusal",
                "document.querySelector('#message.error')?.textContent",
            )
            .await;
            assert!(refusal.as_str().unwrap().contains("no pieces"), "{refusal}");
            click(&c, "#editor-cancel").await;
            until(
                &c,
                "the game again",
                "!document.querySelector('#status').textContent.startsWith('Editing')",
            )
            .await;
            assert!(!displayed(&c, "#editor").await);
        },
    );
}

/// A ballot with a name in checkers literature shows it in the ballot choice and, once
/// started, in the status line, as the server names the game's opening.
#[test]
fn a_ballot_game_shows_its_opening_name() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let ballot = c
                .execute("return fetch('/api/info').then(r => r.json()).then(i => i.ballots.find(b => b.name));", vec![])
                .await
                .unwrap();
            let name = ballot["name"].as_str().unwrap().to_string();
            choose(&c, "#opponent-mode", "human").await;
            open_start_options(&c).await;
            choose(&c, "#start", "ballot").await;
            choose(&c, "#ballot", &ballot["index"].to_string()).await;
            // The drop-down lists the ballot under its name, which shows under it once chosen.
            let group = run_js(
                &c,
                "return document.querySelector('#ballot').selectedOptions[0].parentElement.label;",
            )
            .await;
            assert_eq!(group, json!(name));
            let shown = c
                .find(Locator::Css("#ballot-name"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            assert!(shown.contains(&name), "{shown}");
            click(&c, "#new-game").await;
            until(
                &c,
                "the ballot's game",
                "document.querySelectorAll('#moves .move').length === 3",
            )
            .await;
            assert_eq!(game_state(&c).await["opening"], json!(name));
            let status = until(
                &c,
                "the name in the status",
                &format!(
                    "document.querySelector('#status').textContent.includes({})",
                    json!(name)
                ),
            )
            .await;
            assert_eq!(status, json!(true));
        },
    );
}

/// Loads a game record through the page's Load a game box; waits for its `moves` moves.
async fn load_pdn(c: &Client, pdn: &str, moves: usize) {
    c.execute(
        "document.querySelector('#pdn-text').value = arguments[0]; \
         document.querySelector('#pdn-text').closest('details')?.setAttribute('open', '');",
        vec![json!(pdn)],
    )
    .await
    .unwrap();
    click(c, "#load-pdn").await;
    let check = format!("document.querySelectorAll('#moves .move').length === {moves}");
    until(c, "the loaded game", &check).await;
}

/// Makes a game through the API (from the page, which shares the server); its id.
async fn api_game(c: &Client, body: Value) -> String {
    let s = c
        .execute(
            "return fetch('/api/games', {method: 'POST', headers: {'Content-Type': \
             'application/json'}, body: JSON.stringify(arguments[0])}).then(r => r.json());",
            vec![body],
        )
        .await
        .unwrap();
    s["id"].to_string()
}

/// The server plays the computer's moves: a game between two agents made through the API
/// has moved on by the time a page opens it, and a page opened while the computer thinks
/// shows it thinking, then its move.
#[test]
fn pages_opened_later_see_the_computers_moves() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let id = api_game(
                &c,
                json!({"black": "alphabeta:depth=2", "white": "alphabeta:depth=2"}),
            )
            .await;
            tokio::time::sleep(Duration::from_millis(1500)).await;
            c.goto(&format!("{url}?game={id}")).await.unwrap();
            until(
                &c,
                "the game, moved on",
                "document.querySelectorAll('#moves .move').length >= 6",
            )
            .await;

            // The computer (Black) thinks for five seconds before its first move: long enough
            // for the page to load and show it thinking on a loaded machine.
            let id = api_game(
                &c,
                json!({"black": "alphabeta:time=5000", "white": "human"}),
            )
            .await;
            c.goto(&format!("{url}?game={id}")).await.unwrap();
            let thinking = until(
                &c,
                "the thinking indicator",
                "!document.querySelector('#thinking').hidden && document.querySelector('#thinking-text').textContent",
            )
            .await;
            assert!(
                thinking.as_str().unwrap().contains("is thinking"),
                "{thinking}"
            );
            // The reopened game's players are what the New game panel shows.
            let panel = run_js(
                &c,
                "return ['user-color', 'opponent-mode', 'opponent', 'agent-extra'].map((id) => document.getElementById(id).value);",
            )
            .await;
            assert_eq!(panel, json!(["white", "custom", "alphabeta", "time=5000"]));
            until(
                &c,
                "the computer's move",
                "document.querySelectorAll('#moves .move').length === 1 && document.querySelector('#thinking').hidden",
            )
            .await;

            // A game the server no longer holds is said to be gone, over the new game that
            // takes its place (whose start would otherwise clear the message).
            c.goto(&format!("{url}?game=99999")).await.unwrap();
            let said = until(
                &c,
                "the gone game's message",
                "document.body.dataset.ready === '1' && document.querySelector('#message').textContent.includes('no game 99999') && document.querySelector('#message').textContent",
            )
            .await;
            assert!(
                said.as_str().unwrap().ends_with("This is a new game."),
                "{said}"
            );
            assert!(
                !c.current_url()
                    .await
                    .unwrap()
                    .as_str()
                    .ends_with("game=99999")
            );
        },
    );
}

/// The review grades as a player would: a man given away for nothing from an even position
/// (alpha-beta's 16% of the expected result) is a blunder, as lichess's thresholds make it.
#[test]
fn a_man_given_away_is_a_blunder_in_the_review() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            // 19-16 walks into 11x20 with nothing back.
            load_pdn(&c, "1. 11-15 23-19 2. 8-11 19-16 *", 4).await;
            click(&c, "#review").await;
            until(
                &c,
                "the review",
                "document.querySelector('#message').textContent.startsWith('Review done')",
            )
            .await;
            let white = run_js(
                &c,
                "return [...document.querySelector('#review-summary tbody tr[data-side=\"white\"]').cells].map(c => c.textContent);",
            )
            .await;
            assert_eq!(white[4], "1", "White's blunders: {white}");
            let mark = run_js(
                &c,
                "return [...document.querySelectorAll('#moves .move')].map(m => m.textContent).join(' ');",
            )
            .await;
            assert!(mark.as_str().unwrap().contains("19-16??"), "{mark}");
            // The review comes back with the game, from the analyses the server kept,
            // without searching again.
            c.refresh().await.unwrap();
            let again = until(
                &c,
                "the kept review",
                "document.body.dataset.ready === '1' && !document.querySelector('#review-summary').hidden && \
                 [...document.querySelector('#review-summary tbody tr[data-side=\"white\"]').cells].map(c => c.textContent)",
            )
            .await;
            assert_eq!(again, white, "the same review after a reload");
            let marked = until(&c, "the marks", "[...document.querySelectorAll('#moves .move')].map(m => m.textContent).join(' ').includes('19-16??')").await;
            assert_eq!(marked, true);
            assert_eq!(
                run_js(&c, "return document.body.dataset.thinking;").await,
                "0",
                "no search for a kept review"
            );
        },
    );
}

/// The squares' names are clear of the pieces on them: every corner of each name's box lies
/// outside the piece's disc and its shadow, on a full checkers start and a full Othello board.
#[test]
fn pieces_leave_the_square_names_readable() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            // On the screen: each name's box against each circle of the piece on its square.
            let covered = "return [...document.querySelectorAll('#board [data-square]')].flatMap((g) => { \
                const name = g.querySelector('.sq-number'); \
                if (!name) return []; \
                const b = name.getBoundingClientRect(); \
                const corners = [[b.left, b.top], [b.right, b.top], [b.left, b.bottom], [b.right, b.bottom]]; \
                const under = [...g.querySelectorAll('.piece circle.body, .piece circle.shadow')].some((circle) => { \
                  const c = circle.getBoundingClientRect(); \
                  const [cx, cy, r] = [c.left + c.width / 2, c.top + c.height / 2, c.width / 2]; \
                  return corners.some(([x, y]) => Math.hypot(x - cx, y - cy) < r); \
                }); \
                return under ? [name.textContent] : []; \
              });";
            let labels = run_js(
                &c,
                "return document.querySelectorAll('#board .sq-number').length;",
            )
            .await;
            assert_eq!(labels, 32, "the square names are shown");
            assert_eq!(
                run_js(&c, covered).await,
                json!([]),
                "checkers' names under pieces"
            );
            // Three arrows' labels stacked on one square stay clear of every square's name
            // (one stacked high moves right of the name in its corner).
            let stacked = "return import('/screen.js').then(({ screen }) => { \
                const arrows = [[10, '+0.25', 'score'], [11, '100%', 'share'], [19, '-0.50', 'score']] \
                  .map(([from, label, kind]) => ({ move: `${from}-15`, from, path: [15], weight: 0.8, label, kind })); \
                screen.board.render({ ...screen.board.model, arrows }); \
                const boxes = (css) => [...document.querySelectorAll(css)].map((e) => e.getBoundingClientRect()); \
                const labels = boxes('#board .arrow-label rect'); \
                const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; \
                return [labels.length, boxes('#board .sq-number').filter((n) => labels.some((l) => hit(l, n))).length]; });";
            assert_eq!(
                run_js(&c, stacked).await,
                json!([3, 0]),
                "stacked arrow labels over square names"
            );
            // Discs on every square but one, so X still has a move.
            let full = format!("{}X-", "XO".repeat(31));
            let id = api_game(
                &c,
                json!({"game": "othello", "start": "fen", "fen": format!("{full} O")}),
            )
            .await;
            c.goto(&format!("{url}?game={id}")).await.unwrap();
            until(
                &c,
                "the full Othello board",
                "document.querySelectorAll('#board .disc').length === 63",
            )
            .await;
            assert_eq!(
                run_js(&c, covered).await,
                json!([]),
                "Othello's names under discs"
            );
        },
    );
}

/// An agent its kind refuses, asked for through the New game form, is the form's error: the
/// parser's reason is shown and the game on the board stays. A level thinking is named by
/// its level, not by its agent's spec.
#[test]
fn the_form_refuses_a_bad_agent_and_a_level_is_named_by_its_name() {
    crate::common::without_installed_databases();
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let before = c.current_url().await.unwrap().to_string();
            choose(&c, "#opponent-mode", "custom").await;
            choose(&c, "#opponent", "az").await;
            // The databases field offers database folders (here only none), the model
            // field the model files.
            let offered = run_js(
                &c,
                "return ['agent-egdb', 'agent-model'].map((id) => [...document.getElementById(id).options].map((o) => o.value));",
            )
            .await;
            assert_eq!(offered[0], json!(["", "none"]), "{offered}");
            assert!(
                offered[1]
                    .as_array()
                    .unwrap()
                    .contains(&json!("models/default.bin")),
                "{offered}"
            );
            fill(&c, "#agent-extra", "foo=1").await;
            click(&c, "#new-game").await;
            let said = until(
                &c,
                "the refusal",
                "document.querySelector('#message').textContent.includes('no option') && document.querySelector('#message').textContent",
            )
            .await;
            assert!(
                said.as_str()
                    .unwrap()
                    .contains("agent az has no option \"foo\""),
                "{said}"
            );
            assert_eq!(c.current_url().await.unwrap().to_string(), before);

            choose(&c, "#opponent-mode", "level").await;
            choose(&c, "#level", "3").await;
            choose(&c, "#user-color", "white").await;
            click(&c, "#new-game").await;
            let thinking = until(
                &c,
                "the computer thinking",
                "!document.querySelector('#thinking').hidden && document.querySelector('#thinking-text').textContent",
            )
            .await;
            assert_eq!(thinking, "The computer (Strong) is thinking…");
            // Its thinking is hidden, and Stop does not hurry it.
            let hidden = run_js(
                &c,
                "return [document.querySelector('#stop').disabled, \
                 document.querySelectorAll('#analysis .eval, #board .arrow').length];",
            )
            .await;
            assert_eq!(hidden, json!([true, 0]), "while the computer thinks");
            let status = run_js(&c, "return document.querySelector('#status').textContent;").await;
            assert!(
                status
                    .as_str()
                    .unwrap()
                    .contains("The computer (Strong) is thinking"),
                "{status}"
            );
            // Shown, its analysis, too, is the level's, not its agent spec's.
            click(&c, "#show-thinking").await;
            until(
                &c,
                "the computer's analysis",
                "document.querySelector('#analysis .meta')?.textContent.startsWith('The computer (Strong) · ')",
            )
            .await;
        },
    );
}

/// Both clocks show, the side at the bottom of the board below it; they tick for the side to
/// move, come back with a reload, and a flag fall ends the game with its reason on the page.
#[test]
fn clocks_tick_for_the_side_to_move_and_a_flag_fall_ends_the_game() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let clocks = "return ['top', 'bottom'].map((at) => { const el = document.getElementById(`clock-${at}`);                  return [el.hidden, el.querySelector('.clock-side').textContent, el.querySelector('.clock-time').textContent, el.classList.contains('running')]; });";
            assert_eq!(run_js(&c, clocks).await[0][0], true, "no clock, no clocks");
            choose(&c, "#opponent-mode", "level").await;
            choose(&c, "#level", "0").await;
            choose(&c, "#clock-control", "3+2").await;
            click(&c, "#new-game").await;
            until(
                &c,
                "the clocks",
                "!document.querySelector('#clock-top').hidden",
            )
            .await;
            // The person plays Black, at the bottom; nothing runs before the first move.
            assert_eq!(
                run_js(&c, clocks).await,
                json!([
                    [false, "White", "3:00", false],
                    [false, "Black", "3:00", false]
                ])
            );
            fill(&c, "#move-input", "11-15").await;
            click(&c, "#move-form button[type=submit]").await;
            until(
                &c,
                "the computer's reply",
                "document.querySelectorAll('#moves .move').length === 2",
            )
            .await;
            let after = until(&c, "Black's clock running", "document.querySelector('#clock-bottom').classList.contains('running') && document.querySelector('#clock-bottom .clock-time').textContent").await;
            // Black's untimed first move earned it the 2 s increment (shown to the second
            // below: 3:01 once any time has gone).
            assert!(
                ["3:02", "3:01"].contains(&after.as_str().unwrap()),
                "{after}"
            );
            tokio::time::sleep(Duration::from_millis(1200)).await;
            let ticked = run_js(&c, clocks).await;
            assert_ne!(ticked[1][2], after, "the running clock ticks: {ticked}");
            assert!(
                ["3:01", "3:00"].contains(&ticked[1][2].as_str().unwrap()),
                "{ticked}"
            );
            assert_eq!(ticked[0][3], false, "{ticked}");
            // A reload keeps the time control in the panel and the clocks on the page.
            c.refresh().await.unwrap();
            until(&c, "the reopened game", "document.body.dataset.ready === '1' && !document.querySelector('#clock-top').hidden").await;
            let control =
                run_js(&c, "return document.querySelector('#clock-control').value;").await;
            assert_eq!(control, "3+2");

            // Two people on 1.2 s each: Black's first move starts White's clock, which runs out.
            let id = api_game(&c, json!({"clock": "0.02+0"})).await;
            c.goto(&format!("{url}?game={id}")).await.unwrap();
            until(&c, "the game", "document.body.dataset.ready === '1' && !document.querySelector('#clock-top').hidden").await;
            fill(&c, "#move-input", "11-15").await;
            click(&c, "#move-form button[type=submit]").await;
            let status = until(&c, "the flag fall", "document.querySelector('#status').textContent.includes('on time') && document.querySelector('#status').textContent").await;
            assert!(
                status.as_str().unwrap().contains("Black wins on time"),
                "{status}"
            );
            let out = run_js(&c, "return [...document.querySelectorAll('.clock.out')].map((el) => [el.dataset.side, el.querySelector('.clock-time').textContent]);").await;
            assert_eq!(out, json!([["white", "0:00.0"]]));
            let running = run_js(
                &c,
                "return document.querySelectorAll('.clock.running').length;",
            )
            .await;
            assert_eq!(running, 0);
        },
    );
}

/// A dashboard with no runs says how to start one, instead of a wall of empty charts.
#[test]
fn an_empty_dashboard_says_how_to_start_a_run() {
    let empty = std::env::temp_dir().join(format!("cz-no-runs-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    with_browser(&empty, "1400,1000", |c, url| async move {
        c.goto(&url).await.unwrap();
        until(&c, "the first board", "document.body.dataset.ready === '1'").await;
        click(&c, "#tab-dashboard").await;
        let said = until(
            &c,
            "the empty dashboard's advice",
            "!document.querySelector('#dashboard-empty').hidden && document.querySelector('#dashboard-empty').innerText",
        )
        .await;
        assert!(
            said.as_str().unwrap().contains("checkers-zero train"),
            "{said}"
        );
        let shown = run_js(
            &c,
            "return [...document.querySelectorAll('#dashboard-view *')].filter((e) => e.checkVisibility() && e.textContent.includes('nothing to draw yet')).length;",
        )
        .await;
        assert_eq!(shown, 0, "empty charts are shown");
        assert_eq!(
            run_js(
                &c,
                "return document.querySelector('#runs').checkVisibility();"
            )
            .await,
            false
        );
    });
    std::fs::remove_dir_all(&empty).unwrap();
}

/// Side lines: a move played from an earlier position starts one, shown below the move it
/// replaces, while the game stays as it was; it grows by a typed move, is stepped through
/// with the arrow keys, analysed where it is shown, kept over a reload, and deleted.
#[test]
fn side_lines_are_played_stepped_analysed_and_deleted() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            load_pdn(&c, "1. 11-15 23-19 2. 8-11 22-17 *", 4).await;
            let status = "document.querySelector('#status').textContent";
            click(&c, "#moves .move[data-line='0'][data-ply='1']").await;
            until(
                &c,
                "ply 1",
                &format!("{status}.includes('White to move · after 1. 11-15')"),
            )
            .await;
            // White plays 22-18 there by clicks instead of the game's 23-19.
            square(&c, 22).await;
            square(&c, 18).await;
            let first = until(
                &c,
                "the side line",
                "document.querySelector('#moves .side-line .move.current')?.textContent",
            )
            .await;
            assert_eq!(first, "22-18");
            assert!(
                until(&c, "its status", status)
                    .await
                    .as_str()
                    .unwrap()
                    .contains("after 1… 22-18 in a side line")
            );
            let s = game_state(&c).await;
            assert_eq!(
                (s["ply"].as_u64(), s["moves_text"].as_str()),
                (Some(4), Some("1. 11-15 23-19 2. 8-11 22-17"))
            );
            // The side line sits below the row of the move it replaces.
            let row = run_js(
                &c,
                "const li = document.querySelector('#moves li.side-lines'); \
                 return li.previousElementSibling.textContent;",
            )
            .await;
            assert!(row.as_str().unwrap().contains("23-19"), "{row}");
            // A typed move grows it (Black's capture is forced).
            fill(&c, "#move-input", "15x22").await;
            click(&c, "#move-form button[type=submit]").await;
            until(
                &c,
                "the grown side line",
                "[...document.querySelectorAll('#moves .side-line .move')].map(e => e.textContent).join(' ') === '22-18 15x22' \
                 && document.querySelector('#moves .move.current')?.textContent === '15x22'",
            )
            .await;
            // The arrow keys step back along it, and past its start onto the game's line.
            for _ in 0..2 {
                run_js(&c, "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}));").await;
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            let current = until(
                &c,
                "the game's first move",
                "document.querySelector('#moves .move.current[data-line=\"0\"]')?.textContent",
            )
            .await;
            assert_eq!(current, "11-15");
            // Analysis follows the position shown: the side line's last.
            click(&c, "#moves .side-line .move[data-ply='3']").await;
            until(
                &c,
                "ply 3",
                &format!("{status}.includes('after 2. 15x22 in a side line')"),
            )
            .await;
            click(&c, "#hint").await;
            let meta = until(
                &c,
                "the side line's analysis",
                "document.body.dataset.thinking === '0' && document.querySelector('#analysis .meta')?.textContent",
            )
            .await;
            assert!(meta.as_str().unwrap().contains("this position"), "{meta}");
            // A running analysis follows the position shown.
            click(&c, "#analyse").await;
            // Named by move (2. is the side line's ply 3), and by the level's name or spec.
            until(&c, "the analysis of ply 3", "document.querySelector('#thinking-text').textContent.includes(\"side line's position after 2.\")").await;
            click(&c, "#moves .side-line .move[data-ply='2']").await;
            until(&c, "the analysis of ply 2", "document.querySelector('#thinking-text').textContent.includes(\"side line's position after 1…\") \
                 && document.querySelector('#analysis .meta')?.textContent.includes('this position')").await;
            click(&c, "#stop").await;
            until(
                &c,
                "the end of the analysis",
                "document.body.dataset.thinking === '0'",
            )
            .await;
            // A Stop pressed before the server has the search still ends it.
            let started = run_js(
                &c,
                "document.querySelector('#analyse').click(); document.querySelector('#stop').click(); \
                 return document.body.dataset.thinking;",
            )
            .await;
            assert_eq!(started, "1");
            until(
                &c,
                "the end of an analysis stopped at once",
                "document.body.dataset.thinking === '0'",
            )
            .await;
            // The server keeps it: a reload shows it again; then it is deleted.
            c.refresh().await.unwrap();
            until(
                &c,
                "the side line after a reload",
                "document.querySelectorAll('#moves .side-line .move').length === 2",
            )
            .await;
            click(&c, "#moves .delete-line").await;
            until(
                &c,
                "no side line",
                "document.querySelectorAll('#moves .side-line').length === 0",
            )
            .await;
            assert_eq!(game_state(&c).await["variations"], json!([]));
        },
    );
}

/// Runs `script` against a server on `runs` in headless Chromium; false (with a note) when
/// no browser is installed (and not every test must run).
fn with_browser<F, Fut>(runs: &Path, window: &str, script: F) -> bool
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    // Each server keeps its games in an archive of its own, as `gui` does.
    static SERVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SERVERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = common::ScratchDir::new(&format!("browser-{n}"));
    let options = GuiOptions {
        models: vec![PathBuf::from("models")],
        runs: vec![runs.to_path_buf()],
        archive: Some(dir.0.join("games.sqlite")),
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    };
    with_browser_on(&options, window, script)
}

/// [`with_browser`] on a server started with `options`.
fn with_browser_on<F, Fut>(options: &GuiOptions, window: &str, script: F) -> bool
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let browser = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let driver = find_program(&["chromedriver"]);
    let (Some(browser), Some(driver)) = (browser, driver) else {
        common::skip("no chromium and chromedriver found (install chromium and chromium-driver)");
        return false;
    };
    let server = Server::start(options).unwrap();
    let driver = start_driver(&driver);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut caps = serde_json::Map::new();
        let mut options = json!({
            "binary": browser,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", format!("--window-size={window}")],
        });
        // Headless windows are at least 500 px wide: narrower ones are a phone's screen,
        // emulated, or with `,desktop` a desktop browser's narrow window (its scrollbars
        // take width, as a phone's do not).
        let mut parts = window.split(',');
        let (width, height): (u32, u32) = (
            parts.next().unwrap().parse().unwrap(),
            parts.next().unwrap().parse().unwrap(),
        );
        let phone = parts.next() != Some("desktop");
        if width < 500 {
            options["mobileEmulation"] = json!({"deviceMetrics": {"width": width,
                "height": height, "pixelRatio": 1, "mobile": phone, "touch": phone}});
        }
        caps.insert("goog:chromeOptions".into(), options);
        let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&driver.url)
            .await
            .expect("a chromedriver session");
        let result = tokio::spawn(script(c.clone(), server.url())).await;
        let _ = c.close().await;
        if let Err(e) = result {
            std::panic::resume_unwind(e.into_panic());
        }
    });
    true
}

#[test]
fn the_play_page_works_in_a_real_browser() {
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-play.png");
    let ran = with_browser(Path::new("tests/data/runs"), "1400,1000", {
        let shot = shot.clone();
        |c, url| async move { drive(&c, &url, &shot).await }
    });
    if ran {
        let png = std::fs::read(&shot).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        eprintln!("screenshot: {}", shot.display());
    }
}

/// Ticks (or unticks) run `name`'s box in the dashboard's table, if it is not so already.
async fn tick(c: &Client, name: &str, on: bool) {
    let css = format!("#runs tr[data-run=\"{name}\"] input[type=checkbox]");
    until(
        c,
        &format!("{name}'s row"),
        &format!("document.querySelector('{css}')"),
    )
    .await;
    let checked = c
        .execute(
            &format!("return document.querySelector('{css}').checked;"),
            vec![],
        )
        .await
        .unwrap();
    if checked != json!(on) {
        click(c, &css).await;
    }
}

/// The legend of chart `chart` as JavaScript: [[label, value], ...], the x axis first.
fn legend_js(chart: &str) -> String {
    format!(
        "[...document.querySelectorAll('figure[data-chart=\"{chart}\"] .u-legend .u-series')]\
         .map(tr => [tr.querySelector('.u-label')?.textContent ?? '', \
                     tr.querySelector('.u-value')?.textContent ?? ''])"
    )
}

/// A check that chart `chart`'s legend holds a line of each of `runs`.
fn legend_has(chart: &str, runs: &[&str]) -> String {
    format!(
        "(labels => {} .every(r => labels.some(l => l === r || l.startsWith(r + ': '))))({}.map(e => e[0]))",
        json!(runs),
        legend_js(chart)
    )
}

async fn legend(c: &Client, chart: &str) -> Vec<(String, String)> {
    let v = c
        .execute(&format!("return {};", legend_js(chart)), vec![])
        .await
        .unwrap();
    serde_json::from_value(v).unwrap()
}

/// Moves the pointer over chart `chart`'s plotting area, at `across` (0 left, 1 right) of
/// its width, half-way up.
async fn hover(c: &Client, chart: &str, across: f64) {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    let css = format!("figure[data-chart=\"{chart}\"] .u-over");
    let width = c
        .execute(
            &format!(
                "const e = document.querySelector('{css}'); e.scrollIntoView({{block: 'center'}}); \
                 return e.getBoundingClientRect().width;"
            ),
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    let element = c.find(Locator::Css(&css)).await.unwrap();
    let moves = MouseActions::new("mouse".to_string()).then(PointerAction::MoveToElement {
        element,
        duration: Some(Duration::from_millis(100)),
        x: (across - 0.5) * width,
        y: 0.0,
    });
    c.perform_actions(moves).await.unwrap();
}

/// Writes a run folder: config.json (when given) and metrics.jsonl of `lines`, and
/// games/iter-0001.pdn (when given).
fn write_run(dir: &Path, config: Option<Value>, lines: &[Value], game: Option<&str>) {
    std::fs::create_dir_all(dir.join("games")).unwrap();
    if let Some(config) = config {
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("metrics.jsonl"), text).unwrap();
    if let Some(game) = game {
        std::fs::write(dir.join("games/iter-0001.pdn"), game).unwrap();
    }
}

/// Two runs overlaid on the dashboard: each run a line of its own in every chart and an
/// entry in its legend; hovering shows the values of the iteration under the pointer (the
/// runs' own numbers), smoothed on request; a run started later appears without a reload,
/// a run being written is marked live and its iteration count follows it; an Othello run's
/// sample game is offered as text, a checkers run's on the board.
#[test]
fn the_dashboard_compares_runs_in_a_real_browser() {
    use checkers_zero::train::run_dir::RunDir;
    let scratch = common::ScratchDir::new("gui-browser-runs");
    let runs = scratch.0.clone();
    let lines: Vec<Value> = crate::gui_api::fixture_lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/data/runs/fixture/config.json").unwrap(),
    )
    .unwrap();
    let pdn = std::fs::read_to_string("tests/data/runs/fixture/games/iter-0001.pdn").unwrap();
    // Run b: the same iterations with the learning rate halved and other losses.
    let b_lines: Vec<Value> = lines
        .iter()
        .map(|l| {
            let mut l = l.clone();
            l["lr"] = json!(l["lr"].as_f64().unwrap() / 2.0);
            l["policy_loss"] = json!(l["policy_loss"].as_f64().unwrap() * 0.9);
            l
        })
        .collect();
    write_run(&runs.join("az-a"), Some(config.clone()), &lines, Some(&pdn));
    // Run a has a learning curve played afterwards (`checkers-zero curve`): two points.
    let curve_point = |i: u32, score: f64| {
        json!({"iteration": i, "best_iteration": i, "elapsed_s": 60.0 * i as f64,
            "cpu_s": 100.0 * i as f64, "gauntlet": [{"opponent": "alphabeta:depth=4",
            "score": score, "score_low": score / 2.0, "score_high": (score + 1.0) / 2.0}]})
    };
    std::fs::write(
        runs.join("az-a/curve.jsonl"),
        format!(
            "{}\n{}\n{}\n",
            json!({"curve": {"agent": "az:searches=200", "opponents": ["alphabeta:depth=4"],
                "games": 2, "seed": 0}}),
            curve_point(0, 0.2),
            curve_point(2, 0.6)
        ),
    )
    .unwrap();
    write_run(
        &runs.join("az-b"),
        Some(config.clone()),
        &b_lines,
        Some(&pdn),
    );
    let mut othello = config.clone();
    othello["game"] = json!("othello");
    write_run(
        &runs.join("othello-c"),
        Some(othello),
        &lines[..2],
        Some("[Event \"self-play iteration 1\"]\n1. f5 d6 2. c3 d3 *\n"),
    );
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("charts-compare.png");
    let ran = with_browser(&runs, "1400,1300", {
        let (runs, shot) = (runs.clone(), shot.clone());
        move |c, url| async move {
            c.goto(&format!("{url}#dashboard")).await.unwrap();
            until(&c, "the page", "document.body.dataset.ready === '1'").await;
            tick(&c, "az-a", true).await;
            tick(&c, "az-b", true).await;
            tick(&c, "othello-c", false).await;
            until(
                &c,
                "both runs in the lr chart",
                &legend_has("lr", &["az-a", "az-b"]),
            )
            .await;
            // One line a run, named after it; the gauntlet chart has one a run and
            // opponent.
            let labels: Vec<String> = legend(&c, "lr").await.into_iter().map(|e| e.0).collect();
            assert_eq!(labels, ["iteration", "az-a", "az-b"]);
            let labels: Vec<String> = legend(&c, "gauntlet")
                .await
                .into_iter()
                .map(|e| e.0)
                .collect();
            assert_eq!(
                labels,
                [
                    "iteration",
                    "az-a: vs alphabeta:depth=6",
                    "az-a: vs alphabeta:depth=8",
                    "az-b: vs alphabeta:depth=6",
                    "az-b: vs alphabeta:depth=8"
                ]
            );
            // The learning curve: run a's points alone (run b has none).
            until(
                &c,
                "run a's curve",
                &legend_has("curve", &["az-a: vs alphabeta:depth=4"]),
            )
            .await;
            let labels: Vec<String> = legend(&c, "curve").await.into_iter().map(|e| e.0).collect();
            assert_eq!(labels, ["iteration", "az-a: vs alphabeta:depth=4"]);
            let colors = run_js(&c, "return [...document.querySelectorAll('figure[data-chart=\"lr\"] .u-legend .u-series .u-marker')].slice(1).map(m => getComputedStyle(m).borderColor);").await;
            assert_ne!(colors[0], colors[1], "each run its own colour: {colors}");

            // Hovering: the iteration under the pointer and each run's learning rate there.
            hover(&c, "lr", 0.5).await;
            until(
                &c,
                "values on hover",
                &format!("{}.every(e => /^-?[0-9]/.test(e[1]))", legend_js("lr")),
            )
            .await;
            let shown = legend(&c, "lr").await;
            let iteration: u64 = shown[0].1.parse().unwrap();
            assert!((1..=lines.len() as u64).contains(&iteration), "{shown:?}");
            let at = |ls: &[Value]| {
                ls.iter().find(|l| l["iteration"] == iteration).unwrap()["lr"]
                    .as_f64()
                    .unwrap()
            };
            for ((label, value), want) in shown[1..].iter().zip([at(&lines), at(&b_lines)]) {
                let got: f64 = value.parse().unwrap_or_else(|_| panic!("{label}: {value}"));
                assert!(
                    (got - want).abs() <= want * 1e-3,
                    "{label} at iteration {iteration}: shown {got}, the run's {want}"
                );
            }
            // Anywhere across the chart, between points too, every run shows a value.
            for across in [0.03, 0.21, 0.38, 0.55, 0.72, 0.97] {
                hover(&c, "lr", across).await;
                tokio::time::sleep(Duration::from_millis(150)).await;
                let shown = legend(&c, "lr").await;
                assert!(
                    shown
                        .iter()
                        .all(|(_, v)| v.starts_with(|c: char| c.is_ascii_digit())),
                    "at {across} of the width: {shown:?}"
                );
            }
            // Smoothing: the values shown are smoothed, the raw ones beside them.
            run_js(
                &c,
                "const s = document.querySelector('#smoothing'); s.value = '0.9'; \
                 s.dispatchEvent(new Event('input', {bubbles: true}));",
            )
            .await;
            hover(&c, "lr", 0.6).await;
            until(
                &c,
                "smoothed values",
                &format!(
                    "{}.slice(1).every(e => e[1].includes('(raw '))",
                    legend_js("lr")
                ),
            )
            .await;
            c.screenshot()
                .await
                .map(|png| std::fs::write(&shot, png).unwrap())
                .unwrap();

            // A run started now appears without a reload; a trainer on az-b makes it live,
            // and the line it logs shows in the iteration count.
            write_run(&runs.join("az-new"), None, &lines[..1], None);
            until(
                &c,
                "the new run",
                "document.querySelector('#runs tr[data-run=\"az-new\"]')",
            )
            .await;
            let status =
                "document.querySelector('#runs tr[data-run=\"az-b\"] td[data-key=\"status\"]')";
            let count = "document.querySelector('#runs tr[data-run=\"az-b\"] td[data-key=\"iterations\"]').textContent";
            let before = c
                .execute(&format!("return {status}.textContent;"), vec![])
                .await
                .unwrap();
            assert!(
                before.as_str().unwrap().starts_with("last written"),
                "no process writes az-b yet: {before}"
            );
            let mut dir = RunDir::resume(&runs.join("az-b")).unwrap();
            until(&c, "az-b live", &format!("{status}.textContent === 'live'")).await;
            let mut next = b_lines.last().unwrap().clone();
            next["iteration"] = json!(lines.len() + 1);
            dir.log(&next).unwrap();
            until(
                &c,
                "az-b's new iteration",
                &format!("{count} === '{}'", lines.len() + 1),
            )
            .await;
            drop(dir);
            until(
                &c,
                "az-b finished",
                &format!("!{status}.textContent.includes('live')"),
            )
            .await;

            // Sample games replay on the board of their own game.
            click(&c, "#runs tr[data-run=\"othello-c\"] input[type=radio]").await;
            until(
                &c,
                "othello-c's sample",
                "document.querySelector('#run-games button[data-file=\"iter-0001.pdn\"]')",
            )
            .await;
            click(&c, "#run-games button[data-file=\"iter-0001.pdn\"]").await;
            until(
                &c,
                "the Othello sample on its board",
                "document.body.dataset.tab === 'play' && document.querySelectorAll('#moves .move').length === 4 && document.querySelectorAll('#board .disc').length === 4",
            )
            .await;
            click(&c, "#tab-dashboard").await;
            click(&c, "#runs tr[data-run=\"az-a\"] input[type=radio]").await;
            until(
                &c,
                "az-a's sample",
                "document.querySelector('#run-games button[data-file=\"iter-0001.pdn\"]')",
            )
            .await;
            click(&c, "#run-games button[data-file=\"iter-0001.pdn\"]").await;
            until(
                &c,
                "the sample on the board",
                "document.body.dataset.tab === 'play' && document.querySelectorAll('#moves .move').length > 20",
            )
            .await;
            // With its details: the players the file names, its result, the move list at
            // its top while the board shows the start.
            let seen = run_js(&c, "return {names: [...document.querySelectorAll('#players .name')].map(e => e.textContent), \
                     result: document.querySelector('#result').hidden ? '' : document.querySelector('#result').textContent, \
                     top: document.querySelector('#moves').scrollTop};").await;
            assert_eq!(seen["names"], json!(["iter-0000", "iter-0000"]), "{seen}");
            assert!(
                seen["result"].as_str().unwrap().starts_with("1-0"),
                "{seen}"
            );
            assert_eq!(seen["top"], 0, "{seen}");
            // Any game of the file: the fourth, which Black won.
            click(&c, "#tab-dashboard").await;
            click(
                &c,
                "#run-games button[data-file=\"iter-0001.pdn\"][data-index=\"3\"]",
            )
            .await;
            until(
                &c,
                "the fourth game",
                "document.body.dataset.tab === 'play' && document.querySelector('#result').textContent.startsWith('0-1')",
            )
            .await;
        }
    });
    if ran {
        let png = std::fs::read(&shot).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        eprintln!("screenshot: {}", shot.display());
    }
}

/// Every visible text on the play page and the dashboard, against the background it sits
/// on: at least 4.5:1 (3:1 for large text, 24 px or 18.66 px bold); disabled controls are
/// exempt, as WCAG has them.
const LOW_CONTRAST_JS: &str = r#"
const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
const lum = ([r, g, b]) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const background = (el) => {
  for (let e = el; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
  }
  return [255, 255, 255];
};
const low = [];
for (const el of document.querySelectorAll('body *')) {
  if (el.closest('svg, [hidden], option') || el.disabled || el.closest(':disabled')) continue;
  const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own || !el.getClientRects().length) continue;
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || Number(style.opacity) < 0.5) continue;
  const a = lum(rgb(style.color)), b = lum(background(el));
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
  const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
  if (ratio < need) low.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
}
return low;
"#;

#[test]
fn text_has_enough_contrast() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1000",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            square(&c, 9).await;
            click(&c, "#hint").await;
            until(&c, "the hint", "document.querySelector('#analysis .meta')?.textContent.includes('final') && document.body.dataset.thinking === '0'").await;
            let low = c.execute(LOW_CONTRAST_JS, vec![]).await.unwrap();
            assert_eq!(
                low,
                json!([]),
                "the play page's text with too little contrast"
            );
            choose(&c, "#game-kind", "othello").await;
            click(&c, "#new-game").await;
            until(
                &c,
                "the Othello board",
                "document.querySelectorAll('#board .legal').length === 4",
            )
            .await;
            let low = c.execute(LOW_CONTRAST_JS, vec![]).await.unwrap();
            assert_eq!(
                low,
                json!([]),
                "the Othello page's text with too little contrast"
            );
            click(&c, "#tab-dashboard").await;
            until(
                &c,
                "the runs",
                "document.querySelectorAll('#runs tr[data-run]').length",
            )
            .await;
            let low = c.execute(LOW_CONTRAST_JS, vec![]).await.unwrap();
            assert_eq!(
                low,
                json!([]),
                "the dashboard's text with too little contrast"
            );
        },
    );
}

#[test]
fn a_phone_sized_window_shows_the_board_and_new_game_first() {
    with_browser(
        Path::new("tests/data/runs"),
        "400,860",
        |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            let layout = run_js(&c, "const r = (s) => document.querySelector(s).getBoundingClientRect(); \
                 return {width: innerWidth, height: innerHeight, scroll: document.documentElement.scrollWidth, \
                         board: r('#board').toJSON(), button: r('#new-game').toJSON()};").await;
            let n = |v: &Value| v.as_f64().unwrap();
            let (width, height) = (n(&layout["width"]), n(&layout["height"]));
            assert!(
                n(&layout["scroll"]) <= width,
                "no sideways scrolling: {layout}"
            );
            let board = &layout["board"];
            assert!(
                n(&board["width"]) >= 0.8 * width,
                "the board fills the width: {layout}"
            );
            assert!(
                n(&board["left"]) >= 0.0 && n(&board["right"]) <= width,
                "{layout}"
            );
            let button = &layout["button"];
            assert!(
                n(&button["bottom"]) <= height && n(&button["height"]) > 0.0,
                "New game on the first screen: {layout}"
            );
            // One click there starts a game against the computer.
            click(&c, "#new-game").await;
            until(
                &c,
                "the game's address",
                "new URLSearchParams(location.search).get('game')",
            )
            .await;
        },
    );
}

/// The play page's screenshot in docs/ (not a test: run it by hand after changing the page):
/// `cargo test --release --test services -- --ignored docs_screenshots`. Writes
/// docs/img/gui-play.png (a game with the built-in network's analysis).
#[test]
#[ignore]
fn docs_screenshots() {
    with_browser(Path::new("runs"), "1400,960", move |c, url| async move {
        c.goto(&url).await.unwrap();
        until(&c, "the first board", "document.body.dataset.ready === '1'").await;
        // Checkers against the built-in network, its analysis of a middle game.
        choose(&c, "#opponent-mode", "custom").await;
        choose(&c, "#opponent", "az").await;
        fill(&c, "#agent-searches", "800").await;
        choose(&c, "#user-color", "white").await;
        let pdn =
            "1. 11-15 23-19 2. 8-11 22-17 3. 9-13 17-14 4. 10x17 21x14 5. 4-8 19x10 6. 6x15 *";
        load_pdn(&c, pdn, 11).await;
        click(&c, "#nav-last").await;
        click(&c, "#review").await;
        until(
            &c,
            "the review",
            "document.querySelector('#message').textContent.startsWith('Review done')",
        )
        .await;
        click(&c, "#hint").await;
        until(&c, "az's analysis", "document.querySelectorAll('#board .arrow').length > 0 && document.body.dataset.thinking === '0'").await;
        shoot(&c, "gui-play.png").await;
        // Live analysis of an earlier position, caught while it searches.
        click(&c, "#nav-first").await;
        click(&c, "#nav-next").await;
        click(&c, "#nav-next").await;
        click(&c, "#analyse").await;
        until(&c, "a live update", "document.querySelector('#analysis .meta')?.textContent.includes('searching') && document.querySelectorAll('#board .arrow').length > 0").await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        shoot(&c, "gui-analysis.png").await;
        click(&c, "#stop").await;
        until(
            &c,
            "the end of the analysis",
            "document.body.dataset.thinking === '0'",
        )
        .await;
        // Side lines: two from the game's fourth move, one with a side line of its own,
        // and the network's hint where the board stands.
        click(&c, "#moves .move[data-line='0'][data-ply='3']").await;
        for mv in ["22-18", "15x22", "25x18", "4-8"] {
            until(&c, "a position to move from", "document.body.dataset.thinking === '0' && !document.querySelector('#viewing').hidden").await;
            fill(&c, "#move-input", mv).await;
            click(&c, "#move-form button[type=submit]").await;
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
        click(&c, "#moves .side-line .move[data-ply='5']").await;
        until(
            &c,
            "ply 5 of the side line",
            "document.querySelector('#status').textContent.includes('after 3. 15x22 in a side line')",
        )
        .await;
        fill(&c, "#move-input", "26x17").await;
        click(&c, "#move-form button[type=submit]").await;
        until(
            &c,
            "the inner side line",
            "document.querySelectorAll('#moves .side-line .move').length === 5",
        )
        .await;
        click(&c, "#moves .move[data-line='0'][data-ply='3']").await;
        fill(&c, "#move-input", "24-20").await;
        click(&c, "#move-form button[type=submit]").await;
        until(
            &c,
            "the second side line",
            "document.querySelectorAll('#moves .side-line').length === 2",
        )
        .await;
        click(&c, "#moves .side-line .move[data-ply='7']").await;
        until(
            &c,
            "the first side line's end",
            "document.querySelector('#status').textContent.includes('after 4. 4-8 in a side line')",
        )
        .await;
        click(&c, "#hint").await;
        until(&c, "the hint", "document.querySelectorAll('#board .arrow').length > 0 && document.body.dataset.thinking === '0'").await;
        // Tall enough for the board and the move list at once.
        c.set_window_size(1400, 1700).await.unwrap();
        run_js(&c, "window.scrollTo(0, 0);").await;
        shoot(&c, "gui-side-lines.png").await;
        c.set_window_size(1400, 960).await.unwrap();
        // Othello against the built-in network, a few moves in.
        choose(&c, "#game-kind", "othello").await;
        choose(&c, "#opponent-mode", "level").await;
        choose(&c, "#user-color", "black").await;
        click(&c, "#new-game").await;
        for _ in 0..4 {
            until(&c, "Black's turn", "document.body.dataset.thinking === '0' && document.querySelectorAll('#board .legal').length").await;
            click(&c, "#board .legal").await;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        until(&c, "the reply", "document.body.dataset.thinking === '0' && document.querySelectorAll('#board .legal').length").await;
        shoot(&c, "gui-othello.png").await;
    });
}

/// The clocks' and the Games tab's screenshots in docs/ (not a test: run it by hand after
/// changing them): `cargo test --release --test services -- --ignored archive_screenshots`.
/// Writes docs/img/gui-clocks.png (a 3+2 game against the computer, its thinking hidden)
/// and docs/img/gui-games.png (the archive's games).
#[test]
#[ignore]
fn archive_screenshots() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,960",
        move |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            // Earlier games for the list: the computer against itself in both games, and a
            // game on a clock not yet begun (not listed until its first move).
            for body in [
                json!({"black": "alphabeta:depth=3", "white": "alphabeta:depth=2"}),
                json!({"game": "othello", "black": "alphabeta:depth=2", "white": "random"}),
                json!({"clock": "5+3", "white": "az:searches=32,temperature=0.5"}),
            ] {
                api_game(&c, body).await;
            }
            choose(&c, "#opponent-mode", "level").await;
            choose(&c, "#level", "3").await;
            choose(&c, "#clock-control", "3+2").await;
            click(&c, "#new-game").await;
            fill(&c, "#move-input", "11-15").await;
            click(&c, "#move-form button[type=submit]").await;
            until(
                &c,
                "the computer thinking",
                "document.body.dataset.thinking === '1'",
            )
            .await;
            tokio::time::sleep(Duration::from_millis(1200)).await;
            shoot(&c, "gui-clocks.png").await;
            tokio::time::sleep(Duration::from_millis(3000)).await;
            click(&c, "#tab-games").await;
            until(
                &c,
                "the list",
                "document.querySelectorAll('#games-table tbody tr').length >= 3",
            )
            .await;
            shoot(&c, "gui-games.png").await;
        },
    );
}

/// The board editor's and the opening name's screenshots in docs/ (not a test: run it by
/// hand after changing them): `cargo test --release --test services -- --ignored
/// editor_screenshots`. Writes docs/img/gui-editor.png (a checkers position being set up),
/// docs/img/gui-opening.png (a game from a named ballot) and docs/img/gui-drag.png (a piece
/// being dragged).
#[test]
#[ignore]
fn editor_screenshots() {
    with_browser(
        Path::new("tests/data/runs"),
        "1400,1060",
        move |c, url| async move {
            c.goto(&url).await.unwrap();
            until(&c, "the first board", "document.body.dataset.ready === '1'").await;
            choose(&c, "#opponent-mode", "human").await;
            open_editor(&c).await;
            click(&c, "#editor-clear").await;
            place(&c, "black-man", &[9, 11, 12]).await;
            place(&c, "black-king", &[26]).await;
            place(&c, "white-man", &[14, 23, 24, 31]).await;
            place(&c, "white-king", &[3]).await;
            click(&c, "#palette-black-man").await;
            shoot(&c, "gui-editor.png").await;
            click(&c, "#editor-cancel").await;
            let index = run_js(&c, "return [...document.querySelectorAll('#ballot optgroup')].find(g => g.label === 'Ayrshire Lassie')?.querySelector('option').value ?? document.querySelector('#ballot optgroup option').value;").await;
            choose(&c, "#start", "ballot").await;
            choose(&c, "#ballot", index.as_str().unwrap()).await;
            click(&c, "#new-game").await;
            until(
                &c,
                "the ballot's game",
                "document.querySelectorAll('#moves .move').length === 3",
            )
            .await;
            shoot(&c, "gui-opening.png").await;
            // A piece being dragged from 11 towards 15, caught halfway (a game between people).
            choose(&c, "#opponent-mode", "human").await;
            choose(&c, "#start", "initial").await;
            click(&c, "#new-game").await;
            until(&c, "a new game", "document.querySelectorAll('#moves .move').length === 0 && document.querySelector('#status').textContent.startsWith('Black to move')").await;
            run_js(&c, "const at = (n) => document.querySelector(`#board [data-square=\"${n}\"]`).getBoundingClientRect(); \
                 const [a, b] = [at(11), at(15)]; \
                 const point = (x, y) => ({clientX: x, clientY: y, bubbles: true, pointerId: 1, button: 0, isPrimary: true}); \
                 const piece = document.querySelector('#board [data-square=\"11\"] .piece'); \
                 const [ax, ay, bx, by] = [a.x + a.width / 2, a.y + a.height / 2, b.x + b.width / 2, b.y + b.height / 2]; \
                 piece.dispatchEvent(new PointerEvent('pointerdown', point(ax, ay))); \
                 piece.dispatchEvent(new PointerEvent('pointermove', point(ax + 0.6 * (bx - ax), ay + 0.6 * (by - ay))));").await;
            shoot(&c, "gui-drag.png").await;
        },
    );
}

/// The dashboard's screenshot in docs/ (not a test: run it by hand, with real runs):
/// `CHECKERS_ZERO_SCREENSHOT_RUNS=runs cargo test --release --test services -- --ignored
/// dashboard_screenshot`. Ticks the two runs listed first and writes
/// docs/img/charts-compare.png, with the pointer over the policy loss chart.
#[test]
#[ignore]
fn dashboard_screenshot() {
    let runs =
        PathBuf::from(std::env::var("CHECKERS_ZERO_SCREENSHOT_RUNS").unwrap_or("runs".into()));
    with_browser(&runs, "1400,1300", move |c, url| async move {
        c.goto(&format!("{url}#dashboard")).await.unwrap();
        let names = until(
            &c,
            "two runs",
            "(r => r.length >= 2 ? r : null)([...document.querySelectorAll('#runs tbody tr')].map(r => r.dataset.run))",
        )
        .await;
        let names: Vec<&str> = names.as_array().unwrap()[..2]
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        for name in &names {
            tick(&c, name, true).await;
        }
        until(
            &c,
            "both runs in the policy loss chart",
            &legend_has("policy_loss", &names),
        )
        .await;
        hover(&c, "policy_loss", 0.25).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        shoot(&c, "charts-compare.png").await;
    });
}

/// A screenshot of the page as `name` in docs/img.
async fn shoot(c: &Client, name: &str) {
    std::fs::write(docs_img().join(name), c.screenshot().await.unwrap()).unwrap();
}

fn docs_img() -> PathBuf {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// A game played on one server is listed on the next one's Games tab (the same archive),
/// and its Open link shows it on the play page with its moves and side line.
#[test]
fn the_games_tab_lists_the_archive_and_reopens_a_game() {
    use super::gui_api::ok;
    let dir = common::ScratchDir::new("browser-archive");
    let options = GuiOptions {
        archive: Some(dir.0.join("games.sqlite")),
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    };
    let (id, opening) = {
        let first = Server::start(&options).unwrap();
        let a = first.addr;
        let id = ok(a, "POST", "/api/games", json!({}))["id"].clone();
        let mut state = Value::Null;
        for mv in ["11-15", "23-19", "8-11"] {
            state = ok(
                a,
                "POST",
                &format!("/api/games/{id}/move"),
                json!({"move": mv}),
            );
        }
        ok(
            a,
            "POST",
            &format!("/api/games/{id}/lines"),
            json!({"ply": 1, "move": "22-18"}),
        );
        let othello = ok(
            a,
            "POST",
            "/api/games",
            json!({"game": "othello", "white": "random"}),
        );
        ok(
            a,
            "POST",
            &format!("/api/games/{}/move", othello["id"]),
            json!({"move": "f5"}),
        );
        (id, state["opening"].as_str().unwrap_or("").to_string())
    };
    with_browser_on(&options, "1400,1000", move |c, url| async move {
        c.goto(&format!("{url}#games")).await.unwrap();
        let rows = until(
            &c,
            "the archive's games",
            "document.querySelectorAll('#games-table tbody tr').length === 2 && \
             [...document.querySelectorAll('#games-table tbody tr')].map(r => \
               [...r.cells].map(td => td.textContent))",
        )
        .await;
        // Each row but its time and its link.
        let row = |i: usize| rows[i].as_array().unwrap()[1..7].to_vec();
        assert_eq!(
            row(0),
            ["Othello", "a person", "random", "going on", "", "1"].map(|t| json!(t)),
            "{rows}"
        );
        assert_eq!(
            row(1),
            [
                "Checkers",
                "a person",
                "a person",
                "going on",
                opening.as_str(),
                "2"
            ]
            .map(|t| json!(t)),
            "{rows}"
        );
        assert!(
            run_js(
                &c,
                "return document.querySelector('#games-status').textContent"
            )
            .await
                == json!("games 1-2 of 2")
        );
        // Filters ask the server again.
        choose(&c, "#games-game", "othello").await;
        until(
            &c,
            "the Othello game alone",
            "document.querySelectorAll('#games-table tbody tr').length === 1 && \
             document.querySelector('#games-table tbody tr').cells[1].textContent === 'Othello'",
        )
        .await;
        choose(&c, "#games-game", "").await;
        until(
            &c,
            "both games again",
            "document.querySelectorAll('#games-table tbody tr').length === 2",
        )
        .await;
        click(
            &c,
            &format!("#games-table tr[data-id=\"{id}\"] a.games-open"),
        )
        .await;
        until(
            &c,
            "the reopened game",
            &format!(
                "location.search === '?game={id}' && document.body.dataset.tab === 'play' && \
                 document.body.dataset.ready === '1' && \
                 document.querySelectorAll('#moves .move').length > 0"
            ),
        )
        .await;
        let moves = run_js(
            &c,
            "return [...document.querySelectorAll('#moves .move')].map(m => m.textContent.trim())",
        )
        .await;
        // The game's three moves, its side line's one (22-18 for 23-19) beside the move it
        // replaces.
        assert_eq!(moves, json!(["11-15", "23-19", "22-18", "8-11"]), "{moves}");
    });
}
