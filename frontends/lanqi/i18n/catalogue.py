"""The catalogue: one entry per player-facing line, Chinese and English.

Fields are ``str.format`` names (``{name}``, ``{n}``); ``en_plural`` is the English
form for a count other than one (Chinese needs none).  Keep entries grouped by
screen and sorted within a group; a new line a player can see is added here first.
The GUI's shipped font subset is built from these lines too (``python -m
lanqi.gui.fonts``): a new Chinese character here means rebuilding it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATALOGUE", "Text"]


@dataclass(frozen=True, slots=True)
class Text:
    """One line in both languages."""

    zh: str
    en: str
    en_plural: str = ""


CATALOGUE: dict[str, Text] = {
    # --- words used on many screens ---
    "accept": Text("接受", "Accept"),
    "back": Text("返回", "Back"),
    "casual": Text("友谊赛", "casual"),
    "casual_button": Text("友谊赛", "Casual"),
    "decline": Text("拒绝", "Decline"),
    "none": Text("不限时", "none"),
    "rated": Text("等级赛", "rated"),
    "rated_button": Text("等级赛", "Rated"),
    "you": Text("你", "You"),
    "you_mark": Text("你", "you"),
    # --- sides and results (gui/model.py) ---
    "side.black": Text("黑方", "Black"),
    "side.red": Text("红方", "Red"),
    "side.white": Text("白方", "White"),
    # a seat of a variant listed above by none of these words: its spec's seat name
    "seat.side": Text("{who}", "{who}"),
    "seat.to_move": Text("{who}走棋", "{who} to move"),
    "seat.wins": Text("{who}胜", "{who} wins"),
    "wins.black": Text("黑胜", "Black wins"),
    "wins.red": Text("红胜", "Red wins"),
    "wins.white": Text("白胜", "White wins"),
    "result.draw": Text("和棋", "Draw"),
    "result.over": Text("对局结束", "Game over"),
    "termination.abandoned": Text("弃权", "abandoned"),
    "termination.aborted": Text("中止", "aborted"),
    "termination.agreement": Text("同意和棋", "draw agreed"),
    "termination.board_full": Text("盘满", "the board is full"),
    "termination.checkmate": Text("绝杀", "checkmate"),
    "termination.five_in_a_row": Text("连珠", "five in a row"),
    "termination.forbidden_move": Text("禁手", "forbidden move"),
    "termination.insufficient_material": Text("子力不足", "insufficient material"),
    "termination.move_limit": Text("限着判和", "move limit without capture"),
    "termination.no_first_move": Text("中止", "aborted: no first move in time"),
    "termination.perpetual_chase": Text("长捉判负", "perpetual chase"),
    "termination.perpetual_check": Text("长将判负", "perpetual check"),
    "termination.repetition": Text("判和", "repetition"),
    "termination.resignation": Text("认输", "resignation"),
    "termination.stalemate": Text("困毙", "stalemate: no legal move"),
    "termination.timeout": Text("超时", "time out"),
    # --- why a move is refused (the rules' codes, lanqi.games IllegalMoveError.code) ---
    "illegal.forbidden": Text("{point} 是黑方禁手: {why}", "{point} is forbidden for Black: {why}"),
    "illegal.game_over": Text("对局已结束", "the game is over"),
    "illegal.no_piece": Text("{square} 没有棋子", "no piece on {square}"),
    "illegal.no_such_move": Text("没有这样走的棋子", "no piece can move that way"),
    "illegal.not_your_turn": Text("轮到{side}走", "it is {side}'s turn"),
    "illegal.occupied": Text("{point} 已有棋子", "{point} is taken"),
    "illegal.off_board": Text("不在棋盘上", "off the board"),
    "illegal.piece_cannot_move": Text("{piece}不能这样走", "a {piece} cannot move like that"),
    "illegal.self_check": Text(
        "走后将帅被将军或对面", "it would leave the general in check or facing the other"
    ),
    "forbidden.double-four": Text("四四", "double-four"),
    "forbidden.double-three": Text("三三", "double-three"),
    "forbidden.overline": Text("长连", "overline"),
    "piece.advisor": Text("士", "advisor"),
    "piece.cannon": Text("炮", "cannon"),
    "piece.chariot": Text("车", "chariot"),
    "piece.elephant": Text("象", "elephant"),
    "piece.general": Text("将", "general"),
    "piece.horse": Text("马", "horse"),
    "piece.soldier": Text("兵", "soldier"),
    "fonts_missing": Text(
        "有些字显示不了: 请安装 fonts-noto-cjk",
        "some characters cannot be shown: install fonts-noto-cjk",
    ),
    # --- the game screen: status line ---
    "ai_thinking": Text("电脑思考中", "the computer is thinking…"),
    "away": Text("离开", "away"),
    "away_for": Text("离开 {time}", "away {time}"),
    "check": Text("将军!", "Check"),
    "clocks_frozen": Text("时钟已停", "the clocks are frozen"),
    "connection_lost": Text("等待连接", "Connection lost"),
    "first_move_in": Text("首着 {time}", "first move {time}"),
    "forbidden_for_black": Text("× 禁手", "forbidden for Black"),
    "game_record": Text("对局记录", "Game record"),
    "opponent_away": Text("{name} 离开了", "{name} is away"),
    "opponent_away_for": Text(
        "{name} 离开: {time} 后你因对方弃权获胜", "{name} away: you win by abandonment in {time}"
    ),
    "to_move.black": Text("黑方走棋", "Black to move"),
    "to_move.red": Text("红方走棋", "Red to move"),
    "to_move.white": Text("白方走棋", "White to move"),
    "waiting_start": Text("等待开局", "Waiting for the game to start"),
    "waiting_start_banner": Text("等待开局", "Waiting for the start…"),
    "your_move": Text("轮到你", "your move"),
    "you_play.black": Text("你执黑", "you play Black"),
    "you_play.red": Text("你执红", "you play Red"),
    "you_play.white": Text("你执白", "you play White"),
    # --- the game screen: offers and takebacks ---
    "draw_declined_by": Text("{name} 拒绝和棋", "{name} declined the draw"),
    "draw_offer_answer": Text(
        "{name} 提和: D 同意, X 拒绝", "{name} offers a draw: D accepts, X declines"
    ),
    "draw_offered": Text("{name} 提和", "{name} offers a draw"),
    "moves_taken_back": Text("悔了 {n} 步", "{n} move taken back", "{n} moves taken back"),
    # --- the lobby: a tournament game on a physical board ---
    "lobby.board_game": Text(
        "第 {round} 轮 第 {table} 台 (实体棋盘) 对 {name}: 结果?",
        "Round {round}, table {table} (on a board) against {name}: the result?",
    ),
    "lobby.result_disputed": Text(
        "有争议: 对手报的结果不同, 由裁判决定",
        "disputed: your opponent said otherwise; the director decides",
    ),
    "lobby.result_recorded": Text("结果已记录", "result recorded"),
    "lobby.result_waiting": Text(
        "已记下: 对手报同样的结果后生效", "noted: it counts when your opponent says the same"
    ),
    # --- connecting: a name held by a session this client no longer has ---
    "connect.name_taken": Text(
        "{name} 已有人用: 如果是你的名字, 请组织者给你一个报名码 (lanqi reclaim {name}),"
        " 再填到报名码里",
        "'{name}' is taken: if it is yours, ask the organiser for an entry code"
        " (lanqi reclaim {name}) and type it in Entry code",
    ),
    # --- lanqi bot (one line on the command line) ---
    "bot.name_taken": Text(
        "{name} 已有人用: 如果是这个机器人的, 请组织者给一个报名码 (lanqi reclaim {name}),"
        " 再运行 lanqi bot --name {name} --claim 报名码",
        "'{name}' is taken: if it is this bot's, ask the director for a claim code"
        " (lanqi reclaim {name}) and run lanqi bot --name {name} --claim CODE",
    ),
    # --- the game screen: the end of a rated game ---
    "rating_change": Text(
        "等级分 {before} → {after} ({delta})", "rating {before} → {after} ({delta})"
    ),
    # --- the review list ---
    "review.games": Text("{n} 局", "{n} game", "{n} games"),
    # --- the connect screen ---
    "connect.lan_quiet": Text(
        "没有听到服务器: 它可能没有在局域网上公布自己 (--lan), 或者网络挡住了组播。"
        "请输入它的地址。",
        "No server heard: it may not announce itself (--lan), or the network may block "
        "multicast. Type its address.",
    ),
    "rematch_answer": Text(
        "{name} 请求再来一局: Y 接受, X 拒绝", "{name} offers a rematch: Y accepts, X declines"
    ),
    "challenge_answer": Text(
        "{name} 向你挑战: Y 接受, X 拒绝", "{name} challenges you: Y accepts, X declines"
    ),
    "takeback_answer": Text(
        "{name} 请求悔棋: T 同意, X 拒绝", "{name} asks for a takeback: T allows, X refuses"
    ),
    "takeback_asked_by": Text("{name} 请求悔棋", "{name} asks to take back a move"),
    "takeback_refused_by": Text("{name} 拒绝悔棋", "{name} refused the takeback"),
    # --- the game screen: buttons ---
    "accept_draw": Text("同意和棋", "Accept draw"),
    "allow_takeback": Text("同意悔棋", "Allow takeback"),
    "confirm_new_game": Text("确认新局?", "Confirm new game"),
    "confirm_resign": Text("确认认输?", "Confirm resign"),
    "draw_button": Text("和棋", "Draw"),
    "draw_offered_button": Text("已求和", "Draw offered"),
    "flip": Text("翻转", "Flip"),
    "new_game": Text("再来一局", "New game"),
    "next_game": Text("下一局", "Next game ▶"),
    "offer_draw": Text("求和", "Offer draw"),
    "prev_game": Text("上一局", "◀ Previous game"),
    "refuse_takeback": Text("拒绝悔棋", "Refuse"),
    "rematch": Text("再来一局", "Rematch"),
    "resign": Text("认输", "Resign"),
    "save": Text("保存", "Save"),
    "takeback": Text("悔棋", "Takeback"),
    "takeback_asked": Text("已请求", "Takeback asked"),
    "undo": Text("悔棋", "Undo"),
    # --- the game screen: notes ---
    "cannot_resume": Text("无法接着走这一局", "cannot resume that game"),
    "cannot_save": Text("无法保存", "cannot save"),
    "computer_declines_draw": Text("电脑拒绝和棋", "The computer declines the draw"),
    "computer_failed": Text("电脑出错", "the computer failed"),
    "game_not_started": Text("对局还没开始", "the game has not started yet"),
    "game_over": Text("对局已结束", "the game is over"),
    "move_on_its_way": Text("请稍候: 你的着法正在发送", "wait: your move is on its way"),
    "next_game_ready": Text("你的下一局已就绪, 正在打开…", "your next game is ready: opening it…"),
    "no_moves_while_lost": Text("连接中断, 不能走棋", "no moves while the connection is lost"),
    "not_your_move": Text("不是你走", "it is not your move"),
    "not_your_piece": Text("这不是你的棋子: {side}走", "that is not your piece: {side} to move"),
    "point_taken": Text("这个点已有棋子", "that point is taken"),
    "no_move_here": Text("这里没有一步能走的棋", "no move here: click a point one move touches"),
    "premove_cancelled": Text("预走已取消", "premove cancelled"),
    "premove_dropped": Text("预走 {move} 作废", "premove {move} dropped"),
    "premove_set": Text("预走 {move} (右键取消)", "premove {move} (right click cancels)"),
    "position_changed": Text("局面已变", "the position changed"),
    "press_g_again": Text(
        "再按 G 放弃本局开新局", "press G (or the button) again to give this game up for a new one"
    ),
    "press_r_again": Text("再按 R 认输", "press R (or the button) again to resign"),
    "record_only": Text("这是棋谱: 用 ←/→ 翻看", "this is a record: use ←/→ to step through it"),
    "referee_back": Text("裁判恢复连接", "the referee answers again"),
    "reviewing_earlier": Text(
        "正在看前面的着法: End 回到对局", "reviewing an earlier move: End returns to the game"
    ),
    "saved": Text("已保存", "saved"),
    "sound_no_device": Text("声音开, 但没有音频设备", "sound on, but no audio device here"),
    "sound_off": Text("声音关 (M 打开)", "sound off (M turns it on)"),
    "sound_on": Text("声音开", "sound on"),
    "spectators_cannot_move": Text("观众不能走棋", "spectators cannot move"),
    "wait_last_move": Text("请稍候: 你的上一着正在发送", "wait: your last move is on its way"),
    "wait_opponent": Text("等对方走棋", "wait for your opponent's move"),
    "watching_no_moves": Text("你在观战: 不能走棋", "you are watching: no moves here"),
    # --- the game screen: titles, panel, help ---
    "chat": Text("聊天", "Chat"),
    "chat_placeholder": Text("说点什么", "Say something…"),
    "computer": Text("电脑", "Computer"),
    "moves": Text("着法", "Moves"),
    "online_game": Text("联网对局", "Online game"),
    "review": Text("复盘", "Review"),
    "review_end_last": Text("末着", "End: last"),
    "review_end_live": Text("实时", "End: live"),
    "review_step": Text("复盘 {shown}/{ply}", "move {shown}/{ply}"),
    "spectator": Text("观众", "spectator"),
    "tournament_round": Text("比赛 第 {round} 轮", "Tournament round {round}"),
    "two_players": Text("双人对局", "Two players"),
    "vs_computer": Text("人机对局 · {level} 级", "vs Computer · level {level}"),
    "watching": Text("观战", "Watching"),
    "help_title": Text("键盘", "Keys and mouse"),
    "help_keys.arrows": Text("方向键 + Enter/Space", "Arrows + Enter/Space"),
    "help_keys.click": Text("点击 / 拖动", "Click / drag"),
    "help_keys.escape": Text("Esc, 右键", "Esc, right click"),
    "help_keys.help": Text("H 或 F1", "H or F1"),
    "help.arrows": Text("键盘走棋", "move the cursor, pick up, put down"),
    "help.back": Text("返回", "drop the piece, cancel a premove; Esc again: leave"),
    "help.chat": Text("聊天", "type in the chat"),
    "help.click": Text("点击或拖动走棋", "pick up, put down (their turn: premove)"),
    "help.decline": Text("拒绝", "decline an offer"),
    "help.draw": Text("求和", "offer or accept a draw"),
    "help.flip": Text("翻转", "flip the board"),
    "help.help": Text("帮助", "this help"),
    "help.latin": Text("字母", "Latin letters or characters on pieces"),
    "help.new_game": Text("再来一局", "new game / rematch"),
    "help.notation": Text("着法", "notation: Chinese / WXF / ICCS"),
    "help.resign": Text("认输", "resign (press twice)"),
    "help.save": Text("保存", "save the game (PGN / gomoku record)"),
    "help.sound": Text("声音", "sound on / off (remembered)"),
    "help.step": Text("复盘", "step back / forward, first / last move"),
    "help.step_arrows": Text("复盘", "step through moves when not playing"),
    "help.takeback": Text("悔棋", "ask for or allow a takeback"),
    # --- leaving a game ---
    "give_up": Text("放弃", "Leave and give it up"),
    "keep_playing": Text("返回对局", "Keep playing"),
    "leave": Text("退出", "Leave"),
    "leave_goes_on": Text("退出 (对局继续)", "Leave (the game goes on)"),
    "leave_online_why": Text(
        "对局继续: 你的时钟照走, 离开太久判负",
        "The game goes on without you: your clock keeps running, and a seat that stays"
        " away loses by abandonment.",
    ),
    "leave_title": Text("退出对局?", "Leave this game?"),
    "quit": Text("退出", "Quit"),
    "quit_goes_on": Text("退出 (对局继续)", "Quit (the game goes on)"),
    "save_and_leave": Text("保存退出", "Save and leave"),
    "save_and_quit": Text("保存退出", "Save and quit"),
    "stay": Text("返回对局", "Stay"),
    "unfinished_keeps": Text(
        "保存后可在菜单上接着走 ({kept})",
        "Saving keeps it: Resume on the menu brings it back ({kept}).",
    ),
    "unfinished_kept": Text("着法和时钟", "moves, clocks"),
    "unfinished_kept_ai": Text(
        "着法, 时钟, 电脑级别和你的一方", "moves, clocks, the computer's level and your side"
    ),
    "unfinished_moves": Text(
        "已走 {n} 着, 尚无结果.",
        "It has {n} move and no result yet.",
        "It has {n} moves and no result yet.",
    ),
    # --- the connection to the referee and the server ---
    "lost_abandoned": Text(
        "若只是你断线, 裁判已判你弃权; 若服务器停了, 对局会等它",
        "If only your link was down, the referee has ended the game by abandonment; if the"
        " server is down, the game waits for it.",
    ),
    "lost_back_within": Text(
        "若只是你断线, 对方看到你离开: {time} 内回来, 否则判负; 若服务器停了, 对局会等它",
        "If only your link is down, your opponent sees you away: back within {time} or you"
        " lose by abandonment. If the server is down, the game waits for it.",
    ),
    "lost_away_soon": Text(
        "若只是你断线, 对方几秒后看到你离开, 离开太久判负; 若服务器停了, 对局会等它",
        "If only your link is down, your opponent sees you away after a few seconds, and you"
        " lose by abandonment if you stay away. If the server is down, the game waits for it.",
    ),
    "lost_frozen_for": Text(
        "时钟已停: 裁判 {time} 没有回应", "Clocks frozen: no word from the referee for {time}."
    ),
    "lost_frozen_seated": Text(
        "时钟已停; 着法和提议等裁判回应",
        "Clocks frozen; moves and offers wait until the referee answers.",
    ),
    "lost_server": Text("与服务器失去连接 {time}", "lost the server {time} ago"),
    "retry_in": Text("{n} 秒后重试", "retrying in {n} s"),
    "retry_now": Text("正在重新连接…", "trying to reconnect now…"),
    "server_back": Text("服务器恢复连接", "the server answers again"),
    # --- the menu ---
    "menu.ai_level": Text("电脑级别 {level}", "AI level {level}"),
    "menu.clock": Text("时间", "Clock"),
    "menu.first": Text("先手", "first"),
    "menu.hint": Text(
        "1–6 选择 · Esc 退出", "↑↓ + Enter or 1–6 · Esc quits · gomoku AI up to level 5"
    ),
    "menu.hint_resume": Text("R 接着走", "R resumes"),
    "menu.notation": Text("着法", "Notation"),
    #: a variant's offline modes, from its spec (``象棋``, ``Xiangqi``)
    "menu.two_players": Text("双人{variant}", "{variant}: two players"),
    "menu.vs_ai": Text("人机{variant}", "{variant} vs computer"),
    "menu.online": Text("联网对局", "Play online (LAN)"),
    "menu.pieces": Text("棋子", "Pieces"),
    "menu.quit": Text("退出", "Quit"),
    "menu.resume": Text("接着走棋", "Resume"),
    "menu.review": Text("复盘", "Review a record"),
    "menu.second": Text("后手", "second"),
    "menu.subtitle": Text("局域网象棋和五子棋", "lanqi — LAN Xiangqi & Gomoku"),
    "option.rule": Text("规则", "Rule"),
    "option.size": Text("棋盘", "Board"),
    "resume.ai": Text("人机 {level} 级", "vs computer L{level}"),
    "resume.moves": Text("{n} 着", "{n} move", "{n} moves"),
    "resume.two_players": Text("双人", "two players"),
    # --- the connect screen ---
    "connect.bad_claim": Text(
        "{name} 的报名码错误或已用过: 请向组织者要新码",
        "wrong or used entry code for {name}: ask the organiser for a new one",
    ),
    "connect.button": Text("连接", "Connect"),
    "connect.claim": Text("报名码 (如有)", "Entry code (if the organiser gave you one)"),
    "connect.claim_hint": Text("组织者给你的报名码", "the code the organiser gave you, if any"),
    "connect.connecting": Text("正在连接", "connecting"),
    "connect.help": Text(
        "点击服务器或输入地址", "Click a server found on the network, or type its address."
    ),
    "connect.listening": Text("正在局域网里找服务器…", "looking for servers on the network…"),
    "connect.name": Text("名字", "Name"),
    "connect.name_hint": Text("你的名字", "your name"),
    "connect.need_both": Text("请输入服务器地址和名字", "a server address and a name, please"),
    "connect.need_name": Text("请先输入你的名字, 再连接", "type your name, then connect"),
    "connect.no_answer": Text("{server} 没有回应", "no answer from {server}"),
    "connect.referee": Text("裁判 (可不填)", "Referee (optional)"),
    "connect.referee_hint": Text(
        "可不填: 服务器会告诉你", "optional: the server names its referees"
    ),
    "connect.server": Text("服务器", "Server"),
    "connect.servers": Text(
        "局域网服务器", "Servers on the network: name, address, players online"
    ),
    "connect.title": Text("联网对局", "Play on the LAN"),
    "connect.type_address": Text(
        "{problem}; 请输入服务器地址", "{problem}; type the server's address"
    ),
    # --- the lobby ---
    "lobby.bot": Text("机器人", "bot"),
    "lobby.challenge": Text("挑战", "Challenge"),
    "lobby.challenge_cancelled": Text(
        "给 {name} 的挑战已取消", "the challenge to {name} was cancelled"
    ),
    "lobby.challenge_declined": Text("{name} 拒绝了挑战", "{name} declined your challenge"),
    "lobby.challenge_expired": Text("与 {name} 的挑战已过期", "the challenge with {name} expired"),
    "lobby.challenge_sent": Text("已向 {name} 发出挑战", "challenge sent to {name}"),
    "lobby.challenge_withdrawn": Text("{name} 撤回了挑战", "{name} withdrew the challenge"),
    "lobby.challenges_you": Text("{name} 向你挑战", "{name} challenges you"),
    "lobby.connecting": Text("正在连接 {server}…", "connecting to {server}…"),
    "lobby.game": Text("游戏", "Game"),
    "lobby.games": Text("对局", "Live games (click to watch)"),
    "lobby.idle": Text("空闲", "idle"),
    "lobby.in_tournament": Text(
        "你已加入比赛: 轮到你时会叫你", "you are in the tournament: your games will be called"
    ),
    "lobby.invite": Text("按 挑战 邀请 {name}", "press Challenge to invite {name}"),
    "lobby.is_playing": Text("{name} 正在下 {game}: W 观战", "{name} is playing {game}: W watches"),
    "lobby.join": Text("加入", "Join tournament"),
    "lobby.menu": Text("返回", "Menu"),
    "lobby.no_games": Text("没有进行中的对局", "no game being played"),
    "lobby.no_players": Text("还没有人", "nobody yet"),
    "lobby.no_referee": Text("裁判还没有回应", "no answer from the referee yet"),
    "lobby.no_seeks": Text("没有约战: 在下面发起一个", "no open seek: make one below"),
    "lobby.no_tournaments": Text("没有比赛", "no tournament"),
    "lobby.pick_tournament": Text("选一个比赛看排名", "pick a tournament to see its standings"),
    "lobby.n_players": Text("{n} 人", "{n} player", "{n} players"),
    "lobby.playing_seek": Text("正在应约 {name}…", "playing {name}…"),
    "lobby.ply": Text("第 {n} 着", "ply {n}"),
    "lobby.points": Text("{points} 分", "{points} pts"),
    "lobby.games_played": Text("{n} 局", "{n} game", "{n} games"),
    "lobby.round": Text("第 {round} 轮", "round {round}"),
    "lobby.players": Text("棋手", "Players"),
    "lobby.playing": Text("对局中 vs {name} · {variant}", "playing {name} · {variant}"),
    "lobby.refresh": Text("刷新", "Refresh"),
    "lobby.refused": Text("服务器拒绝: {why}", "the server refused: {why}"),
    "lobby.round_paired": Text("比赛第 {round} 轮已配对", "tournament round {round} is paired"),
    "lobby.seek": Text("发起", "Seek a game"),
    "lobby.seek_cancelled": Text("约战已取消", "seek cancelled"),
    "lobby.seek_posted": Text("约战已发出: 等待对手", "seek posted: waiting for an opponent"),
    "lobby.seeks": Text("约战", "Open seeks (click to play)"),
    "lobby.that_is_you": Text("这是你", "that is you"),
    "lobby.time": Text("时间", "Clock"),
    "lobby.title": Text("大厅", "Lobby"),
    "lobby.tournaments": Text("比赛", "Tournaments"),
    "lobby.watch": Text("观战", "Watch"),
    "lobby.yours": Text("你的", "yours"),
    "referee_refused": Text("裁判拒绝: {why}", "the referee refused: {why}"),
    "spectators_cannot": Text("观众不能这样做", "spectators cannot do that"),
    "time.per_move": Text("每着 {s} 秒", "{s} s/move"),
    "time.untimed": Text("不限时", "untimed"),
    "format.double_round_robin": Text("双循环", "double round robin"),
    "format.gauntlet": Text("车轮战", "gauntlet"),
    "format.knockout": Text("淘汰赛", "knockout"),
    "format.round_robin": Text("单循环", "round robin"),
    "format.swiss": Text("瑞士制", "Swiss"),
    "tournament.finished": Text("已结束", "finished"),
    "tournament.open": Text("报名中", "open"),
    "tournament.paused": Text("暂停", "paused"),
    "tournament.running": Text("进行中", "running"),
    # --- the tournament page and the projector (frontends/lanqi/web/static/tournament) ---
    "tour.crosstable": Text("交叉表", "Crosstable"),
    "tour.final_standings": Text("最终排名", "Final standings"),
    "tour.games": Text("第{n}轮对局", "Round {n}: games"),
    "tour.latest_results": Text("最新结果", "Latest results"),
    "tour.lobby": Text("大厅", "Lobby"),
    "tour.live_games": Text("第{n}轮 正在进行", "Round {n}: live games"),
    "tour.no_results": Text("还没有结果", "No results yet"),
    "tour.pairings": Text("对阵", "Pairings"),
    "tour.player": Text("棋手", "Player"),
    "tour.points": Text("积分", "Pts"),
    "tour.projector": Text("投影", "Projector"),
    "tour.report": Text("比赛报告", "Report"),
    "tour.round": Text("第{n}轮", "Round {n}"),
    "tour.round_pairings": Text("第{n}轮对阵", "Round {n} pairings"),
    "tour.scan_to_join": Text("扫码加入", "Scan to join"),
    "tour.standings": Text("排名", "Standings"),
    "tour.standings_after": Text("第{n}轮后排名", "Standings after round {n}"),
    "tour.table": Text("台号", "Table"),
    "tour.waiting_round": Text("等待下一轮", "Waiting for the next round"),
    "tour.tournaments": Text("比赛", "Tournaments"),
    "tour.no_tournaments": Text("还没有比赛", "No tournaments yet"),
    "tour.waiting_start": Text("等待比赛开始", "Waiting for the start"),
    # --- the review screen ---
    "review.files": Text("最近", "Records found"),
    "review.file": Text("文件", "File"),
    "review.no_records": Text(
        "{path} 里没有棋谱 (保存的对局在这里)", "no record in {path} (games you save land there)"
    ),
    "no_such_file": Text("没有这个文件", "no such file"),
    "review.open": Text("打开", "Open"),
    "review.path_hint": Text("棋谱文件路径", "path to a .pgn or gomoku record"),
    "review.pick": Text("请输入路径或选一个文件", "type a path or pick a file"),
    "review.title": Text("复盘", "Review a record"),
    # --- the web pages (frontends/lanqi/web/static) ---
    "web.cancel": Text("取消", "Cancel"),
    "web.chinese_pieces": Text("汉字", "Chinese pieces"),
    "web.color": Text("执子", "Side"),
    "web.color_any": Text("不限", "any"),
    "web.enter": Text("进入大厅", "Enter the lobby"),
    "web.finished": Text("已结束", "finished"),
    "web.letter_pieces": Text("字母", "Letters"),
    "web.link_connecting": Text("正在连接…", "connecting…"),
    "web.link_down": Text("连接中断, 正在重连…", "link lost, reconnecting…"),
    "web.link_up": Text("已连接", "connected"),
    "web.not_found": Text("没有这盘棋", "no such game"),
    "web.play": Text("下棋", "Play"),
    "web.all_tournaments": Text("全部比赛", "All tournaments"),
    "web.chat_name": Text("你的名字", "your name"),
    "web.no_tournaments": Text("现在没有比赛", "No tournament now"),
    "web.send": Text("发送", "Send"),
    "web.sound_off": Text("声音关", "Sound off"),
    "web.sound_on": Text("声音开", "Sound on"),
    "web.tournament_line": Text("比赛 {name} · {variant}", "event {name} · {variant}"),
    "web.take": Text("应战", "Play"),
    "web.variant": Text("游戏", "Game"),
    "web.your_seat": Text("你的对局", "your games"),
}
