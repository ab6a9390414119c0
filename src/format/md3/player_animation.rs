//! Quake III's player animations (`bg_public.h`'s `animNumber_t`), in the
//! order `animation.cfg` lists them, and which of a player's models each
//! animates.

/// A player animation, as `animation.cfg` lists them: the 25 of Quake III
/// in their fixed order, then Team Arena's six gestures, which a file may
/// leave out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlayerAnimation {
    /// `BOTH_DEATH1`: a death, torso and legs together.
    BothDeath1,
    /// `BOTH_DEAD1`: lying dead after it.
    BothDead1,
    /// `BOTH_DEATH2`.
    BothDeath2,
    /// `BOTH_DEAD2`.
    BothDead2,
    /// `BOTH_DEATH3`.
    BothDeath3,
    /// `BOTH_DEAD3`.
    BothDead3,
    /// `TORSO_GESTURE`: the taunt.
    TorsoGesture,
    /// `TORSO_ATTACK`: firing a weapon.
    TorsoAttack,
    /// `TORSO_ATTACK2`: the gauntlet's attack.
    TorsoAttack2,
    /// `TORSO_DROP`: lowering a weapon to change it.
    TorsoDrop,
    /// `TORSO_RAISE`: raising the new one.
    TorsoRaise,
    /// `TORSO_STAND`: holding a weapon.
    TorsoStand,
    /// `TORSO_STAND2`: holding the gauntlet.
    TorsoStand2,
    /// `LEGS_WALKCR`: walking crouched.
    LegsWalkcr,
    /// `LEGS_WALK`.
    LegsWalk,
    /// `LEGS_RUN`.
    LegsRun,
    /// `LEGS_BACK`: running backwards.
    LegsBack,
    /// `LEGS_SWIM`.
    LegsSwim,
    /// `LEGS_JUMP`: jumping forwards.
    LegsJump,
    /// `LEGS_LAND`: landing from it.
    LegsLand,
    /// `LEGS_JUMPB`: jumping backwards.
    LegsJumpb,
    /// `LEGS_LANDB`: landing from it.
    LegsLandb,
    /// `LEGS_IDLE`: standing.
    LegsIdle,
    /// `LEGS_IDLECR`: crouching.
    LegsIdlecr,
    /// `LEGS_TURN`: turning on the spot.
    LegsTurn,
    /// `TORSO_GETFLAG` (Team Arena).
    TorsoGetflag,
    /// `TORSO_GUARDBASE` (Team Arena).
    TorsoGuardbase,
    /// `TORSO_PATROL` (Team Arena).
    TorsoPatrol,
    /// `TORSO_FOLLOWME` (Team Arena).
    TorsoFollowme,
    /// `TORSO_AFFIRMATIVE` (Team Arena).
    TorsoAffirmative,
    /// `TORSO_NEGATIVE` (Team Arena).
    TorsoNegative,
}

/// Every animation with its name in Quake III's sources, in order.
const NAMES: [(PlayerAnimation, &str); 31] = {
    use PlayerAnimation::*;
    [
        (BothDeath1, "BOTH_DEATH1"),
        (BothDead1, "BOTH_DEAD1"),
        (BothDeath2, "BOTH_DEATH2"),
        (BothDead2, "BOTH_DEAD2"),
        (BothDeath3, "BOTH_DEATH3"),
        (BothDead3, "BOTH_DEAD3"),
        (TorsoGesture, "TORSO_GESTURE"),
        (TorsoAttack, "TORSO_ATTACK"),
        (TorsoAttack2, "TORSO_ATTACK2"),
        (TorsoDrop, "TORSO_DROP"),
        (TorsoRaise, "TORSO_RAISE"),
        (TorsoStand, "TORSO_STAND"),
        (TorsoStand2, "TORSO_STAND2"),
        (LegsWalkcr, "LEGS_WALKCR"),
        (LegsWalk, "LEGS_WALK"),
        (LegsRun, "LEGS_RUN"),
        (LegsBack, "LEGS_BACK"),
        (LegsSwim, "LEGS_SWIM"),
        (LegsJump, "LEGS_JUMP"),
        (LegsLand, "LEGS_LAND"),
        (LegsJumpb, "LEGS_JUMPB"),
        (LegsLandb, "LEGS_LANDB"),
        (LegsIdle, "LEGS_IDLE"),
        (LegsIdlecr, "LEGS_IDLECR"),
        (LegsTurn, "LEGS_TURN"),
        (TorsoGetflag, "TORSO_GETFLAG"),
        (TorsoGuardbase, "TORSO_GUARDBASE"),
        (TorsoPatrol, "TORSO_PATROL"),
        (TorsoFollowme, "TORSO_FOLLOWME"),
        (TorsoAffirmative, "TORSO_AFFIRMATIVE"),
        (TorsoNegative, "TORSO_NEGATIVE"),
    ]
};

impl PlayerAnimation {
    /// Every animation, in `animation.cfg`'s order.
    pub const ALL: [PlayerAnimation; 31] = {
        let mut all = [PlayerAnimation::BothDeath1; 31];
        let mut i = 0;
        while i < NAMES.len() {
            all[i] = NAMES[i].0;
            i += 1;
        }
        all
    };

    /// How many every `animation.cfg` lists: Quake III's, `BOTH_DEATH1` to
    /// `LEGS_TURN`. Team Arena's six may follow.
    pub const REQUIRED: usize = 25;

    /// Its place in `animation.cfg`'s order, from 0.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name in Quake III's sources (`LEGS_WALKCR`).
    pub fn name(self) -> &'static str {
        NAMES[self.index()].1
    }

    /// Whether it plays on the legs (`lower.md3`) alone: a `LEGS_`
    /// animation, whose first frame `animation.cfg` numbers past the
    /// torso's (see
    /// [`AnimationConfig::legs_first_frame_offset`](super::AnimationConfig::legs_first_frame_offset)).
    pub fn is_legs(self) -> bool {
        (PlayerAnimation::LegsWalkcr..=PlayerAnimation::LegsTurn).contains(&self)
    }

    /// Whether it plays on the torso (`upper.md3`) alone: a `TORSO_`
    /// animation, Team Arena's included.
    pub fn is_torso(self) -> bool {
        !self.is_legs() && self >= PlayerAnimation::TorsoGesture
    }

    /// Whether it is one of Team Arena's six, which a file may leave out
    /// (Quake III then plays `TORSO_GESTURE` for them).
    pub fn is_team_arena(self) -> bool {
        self.index() >= Self::REQUIRED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_and_names_are_quake_iiis() {
        for (i, (a, name)) in NAMES.iter().enumerate() {
            assert_eq!(a.index(), i);
            assert_eq!(PlayerAnimation::ALL[i], *a);
            assert_eq!(a.name(), *name);
            let kind = [a.is_legs(), a.is_torso()];
            let both = name.starts_with("BOTH_");
            assert_eq!(
                kind,
                [name.starts_with("LEGS_"), name.starts_with("TORSO_")]
            );
            assert_eq!(both, !kind[0] && !kind[1]);
            assert_eq!(a.is_team_arena(), i >= 25);
        }
        assert_eq!(
            PlayerAnimation::ALL[PlayerAnimation::REQUIRED - 1].name(),
            "LEGS_TURN"
        );
    }
}
