"""Issue 24's "Done when" for growing a published corpus (needs RUCOLA_SHARED_DATA).

The v1.1 config on the published files (no private gold: test rows have no domain) plus a
sheet of 40 new in-domain sentences puts them across train, validation and test near
80/10/10, or all in train with ``split.new_rows: train``; once that build is kept as a
published version (``rucola release keep``, then ``dvc add``) and pinned, 5 more rows leave
the first 40 ids as they were, while without the pin they would renumber. The stages run
through the CLI in a temporary copy of the project (``dvc repro`` would run the same
commands, slower).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from dvc_project import copy_project

pytestmark = pytest.mark.slow

PUBLISHED = ["in_domain_train.csv", "in_domain_dev.csv", "out_of_domain_dev.csv", "test.csv"]
KEPT = "data/releases/v1.1.0"
HEADER = "sentence\tmark\terror_type\tsource\n"
# 26 acceptable and 14 unacceptable sentences written for this test (none is in RuCoLA).
FORTY = [
    ("Вечером мы долго гуляли по набережной и смотрели на реку.", "", ""),
    ("Бабушка испекла пирог с яблоками к приезду внуков.", "", ""),
    ("На вокзале было много людей с тяжёлыми чемоданами.", "", ""),
    ("Учитель попросил учеников открыть тетради на новой странице.", "", ""),
    ("Зимой в деревне темнеет очень рано.", "", ""),
    ("Соседский кот опять забрался на крышу гаража.", "", ""),
    ("Мы договорились встретиться у входа в библиотеку.", "", ""),
    ("После дождя в лесу появилось много грибов.", "", ""),
    ("Брат впервые увидел море только в двадцать лет.", "", ""),
    ("Директор подписал приказ о переносе собрания на пятницу.", "", ""),
    ("Дети построили во дворе большую снежную крепость.", "", ""),
    ("Мне пришлось дважды перечитать это письмо.", "", ""),
    ("Поезд задержался из-за сильного снегопада.", "", ""),
    ("Она никогда не забывает поливать цветы на балконе.", "", ""),
    ("Старый мост через овраг давно нуждается в ремонте.", "", ""),
    ("Врач посоветовал ему больше ходить пешком.", "", ""),
    ("В музее открылась выставка северных пейзажей.", "", ""),
    ("Каждое утро отец слушает новости по радио.", "", ""),
    ("Студенты сдали последний экзамен и поехали за город.", "", ""),
    ("Мама купила на рынке свежей клубники.", "", ""),
    ("Туристы заблудились в тумане, но к вечеру вышли к деревне.", "", ""),
    ("Этот рассказ я прочитал ещё в школе.", "", ""),
    ("Мы переставили диван ближе к окну.", "", ""),
    ("Сторож закрыл ворота и выключил свет во дворе.", "", ""),
    ("Девочка аккуратно сложила рисунки в папку.", "", ""),
    ("Из-за ремонта дороги автобус поехал в объезд.", "", ""),
    ("Вчера мы ходили в театре на новую постановку.", "*", "Syntax"),
    ("Мальчики весело играла во дворе до самого вечера.", "*", "Morphology"),
    ("Я давно мечтаю поехать на Байкала летом.", "*", "Syntax"),
    ("Эта книга была написан известным писателем.", "*", "Morphology"),
    ("Он выпил стакан горячего льда.", "*", "Semantics"),
    ("Завтра мы уже поехали на дачу рано утром.", "*", "Semantics"),
    ("Сестра подарила мне красивую шарфа.", "*", "Morphology"),
    ("Круглый квадрат лежал на столе у окна.", "*", "Semantics"),
    ("Мы с другом часто спорим о футбол.", "*", "Syntax"),
    ("Учительница похвалил всех учеников за работу.", "*", "Morphology"),
    ("Я не видел ни одного студента, который пришли вовремя.", "*", "Morphology"),
    ("Отец рассердился на сына за того, что тот опоздал.", "*", "Syntax"),
    ("Молчаливая тишина громко шумела в пустой комнате.", "*", "Semantics"),
    ("Директор велел, чтобы все сотрудники пришли вчера.", "*", "Semantics"),
]
FIVE = [
    ("Осенью листья в парке становятся жёлтыми и красными.", "", ""),
    ("Мы долго ждали автобуса на холодной остановке.", "", ""),
    ("Сын починил велосипед без помощи отца.", "", ""),
    ("Повар добавил в суп слишком много соли и перца.", "", ""),
    ("Котёнок спряталась под кроватью и не выходил.", "*", "Morphology"),
]
ROWS_TO_SPLIT = [  # no annotation round: merge and corpus only pass the in-domain rows on
    ("extract",),
    ("merge-candidates",),
    ("annotate", "merge"),
    ("annotate", "corpus"),
    ("measure",),
    ("filter",),
    ("split",),
]


def sh(*args: str, cwd: Path) -> str:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def write_sheet(path: Path, rows: list[tuple[str, str, str]]) -> None:
    lines = [f"{s}\t{mark}\t{category}\tNewSheet\n" for s, mark, category in rows]
    path.write_text(HEADER + "".join(lines), encoding="utf-8")


def write_params(root: Path, name: str, **split: object) -> str:
    """configs/rucola-v1.1.yaml reading the sheets folder too, ``split`` keys changed."""
    params = yaml.safe_load((root / "configs/rucola-v1.1.yaml").read_text(encoding="utf-8"))
    params["extract"]["sources"].append({"path": "data/raw/sheets", "type": "sheet"})
    params["split"].update(split)
    (root / name).write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    return name


def rows_to_split(run_cli, root: Path, params: str) -> str:
    """Every stage from extract to split; what split printed."""
    printed = ""
    for command in ROWS_TO_SPLIT:
        code, stdout, stderr = run_cli(*command, "--params", params, cwd=root)
        assert code == 0, f"{command}: {stdout}{stderr}"
        printed = stdout
    return printed


def new_rows(root: Path, path: str = "data/interim/split.parquet") -> pd.DataFrame:
    frame = pd.read_parquet(root / path)
    return frame[frame["detailed_source"] == "NewSheet"].set_index("sentence")


@pytest.fixture(scope="module")
def project(tmp_path_factory, shared_data) -> Path:
    root = copy_project(tmp_path_factory.mktemp("growing"))
    (root / "data/raw/rucola_v1").mkdir(parents=True)
    for name in PUBLISHED:
        shutil.copy2(shared_data / "rucola" / name, root / "data/raw/rucola_v1" / name)
    (root / "data/raw/sheets").mkdir()
    write_sheet(root / "data/raw/sheets/new.tsv", FORTY)
    return root


def test_new_rows_spread_over_the_splits_then_keep_their_ids_once_published(project, run_cli):
    # v1.1 plus 40 new sentences: split among themselves, near 80/10/10
    params = write_params(project, "params.yaml")
    printed = rows_to_split(run_cli, project, params)
    first = new_rows(project)
    assert len(first) == 40 and first["pinned_split"].isna().all()
    sizes = first["split"].value_counts().to_dict()
    assert sizes == {"train": 32, "validation": 4, "test": 4}
    report = json.loads((project / "reports/split.json").read_text(encoding="utf-8"))
    # per domain for train and validation; test rows only counted (their domain is hidden)
    assert report["new_rows"]["by_domain"] == {
        "in_domain": {"train": sizes["train"], "validation": sizes["validation"]}
    }
    assert report["new_rows"]["test"] == sizes["test"]
    assert report["pin"]["published_kept"] == 13433 and report["pin"]["matched_by_pin"] == 0
    assert report["pin"]["straddling_groups"] == 103  # docs/maintaining.md's figure
    assert "published rows without labels or domain (no gold): test 2785" in printed
    assert "40 new rows (stratified: in_domain train 32, validation 4, test 4)" in printed
    for command in (("validate",), ("baseline",), ("release", "build")):
        code, stdout, stderr = run_cli(*command, cwd=project)
        assert code == 0, f"{command}: {stdout}{stderr}"

    # or all of them in train, the published test left as it was
    train = write_params(project, "train.yaml", new_rows="train", out="train.parquet")
    code, _, stderr = run_cli("split", "--params", train, "--report", "train.json", cwd=project)
    assert code == 0, stderr
    assert set(new_rows(project, "train.parquet")["split"]) == {"train"}

    # published: kept beside the repository's inputs, tracked by DVC, not by git
    code, _, stderr = run_cli("release", "keep", "--version", "1.1.0", cwd=project)
    assert code == 0, stderr
    assert sorted(p.name for p in (project / KEPT).iterdir()) == ["private", "rucola", "rucola_csv"]
    sh("git", "init", "-q", cwd=project)
    sh("dvc", "add", "-q", KEPT, cwd=project)
    status = sh("git", "status", "--porcelain", "--untracked-files=all", cwd=project)
    assert f"?? {KEPT}.dvc" in status.splitlines()
    assert f"{KEPT}/" not in status  # the kept files (the gold among them) stay out of git

    # 5 more rows, the kept version pinned: the first 40 keep their split and id
    write_sheet(project / "data/raw/sheets/more.tsv", FIVE)
    pinned = write_params(project, "params.yaml", pin=["data/raw/rucola_v1", f"{KEPT}/rucola"])
    printed = rows_to_split(run_cli, project, pinned)
    second = new_rows(project)
    assert len(second) == 45
    kept = second.loc[first.index]
    assert kept["split"].tolist() == first["split"].tolist()
    assert kept["id"].tolist() == first["id"].tolist()
    assert (kept["pinned_split"] == first["split"]).all()
    added = second.drop(index=first.index)
    assert added["pinned_split"].isna().all() and len(added) == 5
    everything = pd.read_parquet(project / "data/interim/split.parquet")
    # after the largest id of their split (and, in train and validation, their domain)
    scope = added["domain"].where(added["split"] != "test", "")
    for (split, domain), rows in added.groupby([added["split"], scope]):
        same = (everything["split"] == split) & ~everything["sentence"].isin(rows.index)
        if domain:
            same &= everything["domain"] == domain
        assert rows["id"].min() == everything.loc[same, "id"].max() + 1
    assert "40 rows matched by split.pin" in printed
    code, stdout, stderr = run_cli("validate", cwd=project)
    assert code == 0, stdout + stderr
    code, stdout, stderr = run_cli(
        "release", "diff", f"{KEPT}/rucola", "data/interim/split.parquet", cwd=project
    )
    assert code == 0, stderr
    assert "| added | 5 |" in stdout and "| moved | 0 |" in stdout
    assert "| removed | 0 |" in stdout and "| corrected | 0 |" in stdout

    # without the pin the same rows renumber: ids are permanent only once kept and pinned
    unpinned = write_params(project, "unpinned.yaml", out="unpinned.parquet")
    code, _, stderr = run_cli("split", "--params", unpinned, "--report", "u.json", cwd=project)
    assert code == 0, stderr
    renumbered = new_rows(project, "unpinned.parquet").loc[first.index]
    assert (renumbered["id"] != first["id"]).any()
